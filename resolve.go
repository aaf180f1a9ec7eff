package adaptor

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Labels of where a declaration came from, as SkillKeyConflictError.Sources
// reports them.
const (
	originAgent    = "agent"
	originRun      = "run"
	originProvider = "provider"
)

// declaration is one complete skill and where it was declared.
type declaration struct {
	skill  skill.Skill
	origin string
}

// resolution is the outcome of resolving one run's skills.
type resolution struct {
	skills driver.ResolvedSkills
	keys   map[string]struct{}
}

// resolve applies the rules of the package doc.
func (a *Agent) resolve(ctx context.Context, runRefs []skill.Ref) (*resolution, error) {
	declared := make(map[string]declaration)
	var order []string // keys of complete declarations, first seen first
	var bare []string  // keys for the provider, first seen first
	seenBare := make(map[string]bool)

	add := func(d declaration) error {
		key := d.skill.Key
		if prev, ok := declared[key]; ok {
			if detail := differs(prev.skill, d.skill); detail != "" {
				return &skill.SkillKeyConflictError{Key: key, Sources: []string{prev.origin, d.origin}, Detail: detail}
			}
			return nil
		}
		declared[key] = d
		order = append(order, key)
		return nil
	}
	for i, refs := range [][]skill.Ref{a.refs, runRefs} {
		origin := originAgent
		if i == 1 {
			origin = originRun
		}
		for _, ref := range refs {
			switch r := ref.(type) {
			case driver.SkillKey:
				key := strings.TrimSpace(string(r))
				if key == "" {
					return nil, fmt.Errorf("%w (a skill.Key from the %s is blank)", skill.ErrSkillKeyMissing, origin)
				}
				if !seenBare[key] {
					seenBare[key] = true
					bare = append(bare, key)
				}
			case driver.Skill:
				if err := check(r, origin); err != nil {
					return nil, err
				}
				if err := add(declaration{skill: r, origin: origin}); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("%w (a nil skill reference from the %s)", skill.ErrSkillKeyMissing, origin)
			}
		}
	}

	// Keys declared completely need nothing from the provider.
	var requested []string
	for _, k := range bare {
		if _, ok := declared[k]; !ok {
			requested = append(requested, k)
		}
	}
	if a.provider == nil {
		if len(requested) > 0 {
			return nil, fmt.Errorf("%w: %q (no provider is installed; add one with adaptor.WithSkillProvider)", skill.ErrSkillNotFound, requested[0])
		}
	} else {
		got, err := a.provider.GetSkills(ctx, slices.Clone(requested))
		if err != nil {
			return nil, err
		}
		for _, k := range requested {
			if _, ok := got[k]; !ok {
				return nil, fmt.Errorf("%w: %q", skill.ErrSkillNotFound, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(got)) {
			s := got[k]
			s.Key = k
			if err := check(s, originProvider); err != nil {
				return nil, err
			}
			if err := add(declaration{skill: s, origin: originProvider}); err != nil {
				return nil, err
			}
		}
	}

	slices.Sort(order)
	selected := make([]skill.Skill, len(order))
	names := make([]string, len(order))
	byName := make(map[string]string, len(order))
	for i, k := range order {
		s := declared[k].skill
		name, err := skill.RuntimeName(s)
		if err != nil {
			return nil, &skill.SkillMaterializationError{Key: k, Cause: err}
		}
		if other, ok := byName[name]; ok {
			return nil, fmt.Errorf("%w: %q and %q both become %q (set skill.MetadataRuntimeName on one of them)", skill.ErrRuntimeNameConflict, other, k, name)
		}
		byName[name] = k
		selected[i], names[i] = s, name
	}

	entries, digests, err := a.materialize(ctx, selected, names)
	if err != nil {
		return nil, err
	}
	res := &resolution{keys: make(map[string]struct{}, len(order))}
	for _, k := range order {
		res.keys[k] = struct{}{}
	}
	res.skills.Entries = entries
	res.skills.Fingerprint = fingerprint(entries, digests)
	return res, nil
}

// check refuses a declaration without a key or a source.
func check(s skill.Skill, origin string) error {
	if strings.TrimSpace(s.Key) == "" {
		return fmt.Errorf("%w (a skill from the %s has a blank key)", skill.ErrSkillKeyMissing, origin)
	}
	if isNil(s.Source) {
		return fmt.Errorf("%w: %q (declared by the %s)", skill.ErrSkillSourceMissing, s.Key, origin)
	}
	return nil
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return r.IsNil()
	}
	return false
}

// materialize stages the selected skills, at most GOMAXPROCS at a time,
// and returns them with their content digests.
func (a *Agent) materialize(ctx context.Context, selected []skill.Skill, names []string) ([]driver.ResolvedSkill, []string, error) {
	out := make([]driver.ResolvedSkill, len(selected))
	digests := make([]string, len(selected))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, s := range selected {
		g.Go(func() error {
			var dir string
			var err error
			if cm, ok := a.materializer.(skill.ContentMaterializer); ok {
				dir, digests[i], err = cm.MaterializeContent(gctx, s)
			} else {
				dir, err = a.materializer.Materialize(gctx, s)
			}
			if err == nil && dir == "" {
				err = errors.New("the materializer returned no folder")
			}
			if err == nil && !filepath.IsAbs(dir) {
				dir, err = filepath.Abs(dir)
				digests[i] = ""
			}
			if err == nil && digests[i] == "" {
				digests[i], err = skill.ContentDigest(dir)
			}
			if err != nil {
				// A materializer's own *SkillMaterializationError is kept
				// as the cause would be: it is replaced, not nested.
				var me *skill.SkillMaterializationError
				if errors.As(err, &me) {
					err = me.Cause
				}
				return &skill.SkillMaterializationError{Key: s.Key, RuntimeName: names[i], Cause: err}
			}
			out[i] = driver.ResolvedSkill{
				Key:         s.Key,
				RuntimeName: names[i],
				Path:        dir,
				Required:    s.Required,
				Reason:      s.Reason,
				Metadata:    maps.Clone(s.Metadata),
				Digest:      digests[i],
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return out, digests, nil
}

// fingerprint digests the selection: every entry's key, runtime name,
// Required, Reason, Metadata and content digest, in key order. Folder
// paths are left out so equal content gives an equal fingerprint on any
// machine.
func fingerprint(entries []driver.ResolvedSkill, digests []string) string {
	h := sha256.New()
	put := func(s string) {
		binary.Write(h, binary.BigEndian, uint64(len(s)))
		h.Write([]byte(s))
	}
	put("agentadaptor resolved skills v1")
	binary.Write(h, binary.BigEndian, uint64(len(entries)))
	for i, e := range entries {
		put(e.Key)
		put(e.RuntimeName)
		putBool(h, e.Required)
		put(e.Reason)
		binary.Write(h, binary.BigEndian, uint64(len(e.Metadata)))
		for _, k := range slices.Sorted(maps.Keys(e.Metadata)) {
			put(k)
			put(e.Metadata[k])
		}
		put(digests[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func putBool(h hash.Hash, b bool) {
	if b {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
}

// differs says how two declarations of one key differ, or returns "" when
// they are the same skill.
func differs(a, b skill.Skill) string {
	switch {
	case a.Required != b.Required:
		return fmt.Sprintf("Required is %v in one and %v in the other", a.Required, b.Required)
	case a.Reason != b.Reason:
		return fmt.Sprintf("Reason %q differs from %q", a.Reason, b.Reason)
	case !maps.Equal(a.Metadata, b.Metadata):
		return "Metadata differs"
	}
	return sourceDiffers(a.Source, b.Source)
}

func sourceDiffers(a, b skill.Source) string {
	switch x := deref(a).(type) {
	case skill.PathSource:
		y, ok := deref(b).(skill.PathSource)
		if !ok {
			break
		}
		px, py := absClean(x.Path), absClean(y.Path)
		if px != py {
			return fmt.Sprintf("folder %s differs from %s", px, py)
		}
		return ""
	case skill.InlineSource:
		y, ok := deref(b).(skill.InlineSource)
		if !ok {
			break
		}
		if x.SkillMD != y.SkillMD {
			return "inline SKILL.md text differs"
		}
		return ""
	case skill.FSSource:
		y, ok := deref(b).(skill.FSSource)
		if !ok {
			break
		}
		if !sameFS(x.FS, y.FS) {
			return "the fs.FS values differ"
		}
		if cleanRoot(x.Root) != cleanRoot(y.Root) {
			return fmt.Sprintf("FS root %q differs from %q", x.Root, y.Root)
		}
		return ""
	case skill.ArchiveSource:
		y, ok := deref(b).(skill.ArchiveSource)
		if !ok {
			break
		}
		switch {
		case x.Format != y.Format:
			return fmt.Sprintf("archive format %q differs from %q", x.Format, y.Format)
		case strings.Trim(x.Subpath, "/") != strings.Trim(y.Subpath, "/"):
			return fmt.Sprintf("archive subpath %q differs from %q", x.Subpath, y.Subpath)
		case x.Fingerprint == "" || y.Fingerprint == "":
			return "archives without a fingerprint are never assumed equal (set skill.WithFingerprint on both)"
		case x.Fingerprint != y.Fingerprint:
			return fmt.Sprintf("archive fingerprint %q differs from %q", x.Fingerprint, y.Fingerprint)
		}
		return ""
	default:
		if sameValue(a, b) {
			return ""
		}
		return fmt.Sprintf("sources of type %T cannot be shown to be equal", a)
	}
	return fmt.Sprintf("a %s source differs from a %s source", kind(a), kind(b))
}

// deref turns pointers to the package's source types into values.
func deref(s skill.Source) skill.Source {
	switch p := s.(type) {
	case *skill.PathSource:
		return *p
	case *skill.InlineSource:
		return *p
	case *skill.FSSource:
		return *p
	case *skill.ArchiveSource:
		return *p
	}
	return s
}

func kind(s skill.Source) string {
	switch deref(s).(type) {
	case skill.PathSource:
		return "folder"
	case skill.InlineSource:
		return "inline"
	case skill.FSSource:
		return "FS"
	case skill.ArchiveSource:
		return "archive"
	}
	return fmt.Sprintf("%T", s)
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

func cleanRoot(r string) string {
	r = strings.Trim(r, "/")
	if r == "" {
		return "."
	}
	return r
}

// sameFS reports whether a and b are the same fs.FS value: equal when
// comparable, the same map or pointer otherwise.
func sameFS(a, b fs.FS) bool { return sameValue(a, b) }

func sameValue(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Map, reflect.Pointer, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return va.Pointer() == vb.Pointer()
	case reflect.Slice:
		return va.Pointer() == vb.Pointer() && va.Len() == vb.Len()
	}
	if !va.Comparable() || !vb.Comparable() {
		return false
	}
	return va.Equal(vb)
}
