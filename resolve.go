package adaptor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
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

// declarations collects a run's skills by key: the complete ones, and the
// bare keys left for the provider.
type declarations struct {
	byKey    map[string]declaration
	bare     []string // keys for the provider, first seen first
	seenBare map[string]bool
}

// resolution is the outcome of resolving one run's skills.
type resolution struct {
	skills driver.ResolvedSkills
	keys   map[string]struct{}
}

// resolve applies the rules of the package doc: merge the agent's and the
// run's references, ask the provider, select, materialize; with requires
// (WithRequires), or for skills marked with skill.WithRequires, the
// closure of their requirements ("Requirements").
func (a *Agent) resolve(ctx context.Context, runRefs []skill.Ref, requires bool) (*resolution, error) {
	decls := &declarations{byKey: make(map[string]declaration), seenBare: make(map[string]bool)}
	if err := decls.addRefs(a.refs, originAgent); err != nil {
		return nil, err
	}
	if err := decls.addRefs(runRefs, originRun); err != nil {
		return nil, err
	}
	if err := a.askProvider(ctx, decls); err != nil {
		return nil, err
	}
	selected, names, err := decls.selection()
	if err != nil {
		return nil, err
	}
	follow, err := following(selected, requires)
	if err != nil {
		return nil, err
	}
	var entries []driver.ResolvedSkill
	var digests []string
	if slices.Contains(follow, true) {
		selected, entries, digests, err = a.closure(ctx, decls, selected, names, follow)
	} else {
		entries, digests, err = a.materialize(ctx, selected, names)
	}
	if err != nil {
		return nil, err
	}
	res := &resolution{keys: make(map[string]struct{}, len(selected))}
	for _, s := range selected {
		res.keys[s.Key] = struct{}{}
	}
	res.skills.Entries = entries
	res.skills.Fingerprint = fingerprint(entries, digests)
	return res, nil
}

// addRefs adds references declared by origin: bare keys are noted for the
// provider, complete skills are checked and added.
func (d *declarations) addRefs(refs []skill.Ref, origin string) error {
	for _, ref := range refs {
		switch r := ref.(type) {
		case driver.SkillKey:
			key := strings.TrimSpace(string(r))
			if key == "" {
				return fmt.Errorf("%w (a skill.Key from the %s is blank)", skill.ErrSkillKeyMissing, origin)
			}
			if !d.seenBare[key] {
				d.seenBare[key] = true
				d.bare = append(d.bare, key)
			}
		case driver.Skill:
			if err := d.add(r, origin); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w (a nil skill reference from the %s)", skill.ErrSkillKeyMissing, origin)
		}
	}
	return nil
}

// add adds one complete skill, refusing one without a key or a source and
// a second declaration of its key that differs from the first.
func (d *declarations) add(s skill.Skill, origin string) error {
	if strings.TrimSpace(s.Key) == "" {
		return fmt.Errorf("%w (a skill from the %s has a blank key)", skill.ErrSkillKeyMissing, origin)
	}
	if skill.SourceDiff(s.Source, nil) == "" { // missing (rule 7 of SourceDiff)
		return fmt.Errorf("%w: %q (declared by the %s)", skill.ErrSkillSourceMissing, s.Key, origin)
	}
	prev, ok := d.byKey[s.Key]
	if !ok {
		d.byKey[s.Key] = declaration{skill: s, origin: origin}
		return nil
	}
	if detail := differs(prev.skill, s); detail != "" {
		return &skill.SkillKeyConflictError{Key: s.Key, Sources: []string{prev.origin, origin}, Detail: detail}
	}
	if s.Metadata[skill.MetadataRequires] != "" && prev.skill.Metadata[skill.MetadataRequires] == "" {
		d.byKey[s.Key] = declaration{skill: s, origin: prev.origin} // the mark of skill.WithRequires is kept
	}
	return nil
}

// askProvider asks the provider for the bare keys no complete declaration
// satisfies (even when there are none, so it can add Required skills) and
// adds everything it returns.
func (a *Agent) askProvider(ctx context.Context, d *declarations) error {
	var requested []string
	for _, k := range d.bare {
		if _, ok := d.byKey[k]; !ok {
			requested = append(requested, k)
		}
	}
	if a.provider == nil {
		if len(requested) > 0 {
			return fmt.Errorf("%w: %q (no provider is installed; add one with adaptor.WithSkillProvider)", skill.ErrSkillNotFound, requested[0])
		}
		return nil
	}
	got, err := a.provider.GetSkills(ctx, slices.Clone(requested))
	if err != nil {
		return err
	}
	for _, k := range requested {
		if _, ok := got[k]; !ok {
			return fmt.Errorf("%w: %q", skill.ErrSkillNotFound, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		s := got[k]
		s.Key = k
		if err := d.add(s, originProvider); err != nil {
			return err
		}
	}
	return nil
}

// selection returns the declared skills sorted by key, with their runtime
// names, refusing two that share a runtime name.
func (d *declarations) selection() ([]skill.Skill, []string, error) {
	keys := slices.Sorted(maps.Keys(d.byKey))
	selected := make([]skill.Skill, len(keys))
	names := make([]string, len(keys))
	byName := make(map[string]string, len(keys))
	for i, k := range keys {
		s := d.byKey[k].skill
		name, err := skill.RuntimeName(s)
		if err != nil {
			return nil, nil, &skill.SkillMaterializationError{Key: k, Cause: err}
		}
		if other, ok := byName[name]; ok {
			return nil, nil, fmt.Errorf("%w: %q and %q both become %q (set skill.MetadataRuntimeName on one of them)", skill.ErrRuntimeNameConflict, other, k, name)
		}
		byName[name] = k
		selected[i], names[i] = s, name
	}
	return selected, names, nil
}

// materialize stages the selected skills, at most GOMAXPROCS at a time,
// checks that agents can load each, and returns them with their content
// digests. A materializer that materializes a whole set (the default
// one, a *skill.Cache) is given the selection at once.
func (a *Agent) materialize(ctx context.Context, selected []skill.Skill, names []string) ([]driver.ResolvedSkill, []string, error) {
	if sm, ok := a.materializer.(setMaterializer); ok {
		return a.materializeSet(ctx, sm, selected, names)
	}
	out := make([]driver.ResolvedSkill, len(selected))
	digests := make([]string, len(selected))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, s := range selected {
		g.Go(func() error {
			dir, digest, err := a.materializeOne(gctx, s)
			if err != nil {
				return materializationError(err, s, names[i])
			}
			digests[i] = digest
			out[i] = resolved(s, names[i], dir, digest)
			return a.verdicts.check(out[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return out, digests, nil
}

// setMaterializer is a materializer that materializes a run's whole
// selection at once, as *skill.Cache does (rule 12 of package skill):
// folders and content digests in the order of skills, the first failure
// a *skill.SkillMaterializationError naming its skill.
type setMaterializer interface {
	MaterializeSet(ctx context.Context, skills []skill.Skill) (dirs, digests []string, err error)
}

// materializeSet is materialize through a setMaterializer: the whole
// selection at once, then the check of each skill an agent has not been
// found to load, at most GOMAXPROCS at a time.
func (a *Agent) materializeSet(ctx context.Context, sm setMaterializer, selected []skill.Skill, names []string) ([]driver.ResolvedSkill, []string, error) {
	dirs, digests, err := sm.MaterializeSet(ctx, selected)
	if err != nil {
		var me *skill.SkillMaterializationError
		if errors.As(err, &me) {
			for i, s := range selected {
				if s.Key == me.Key {
					return nil, nil, materializationError(err, s, names[i])
				}
			}
		}
		return nil, nil, err
	}
	if len(dirs) != len(selected) || len(digests) != len(selected) {
		return nil, nil, fmt.Errorf("agentadaptor: the materializer returned %d folders for %d skills", len(dirs), len(selected))
	}
	out := make([]driver.ResolvedSkill, len(selected))
	for i, s := range selected {
		out[i] = resolved(s, names[i], dirs[i], digests[i])
	}
	g := new(errgroup.Group)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, i := range a.verdicts.unknown(out) {
		g.Go(func() error { return a.verdicts.check(out[i]) })
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	return out, digests, nil
}

// resolved is the entry of a selected skill materialized in dir. The
// mark of skill.WithRequires, an instruction to resolution, is not part
// of it.
func resolved(s skill.Skill, name, dir, digest string) driver.ResolvedSkill {
	md := maps.Clone(s.Metadata)
	if _, ok := md[skill.MetadataRequires]; ok {
		delete(md, skill.MetadataRequires)
		if len(md) == 0 {
			md = nil
		}
	}
	return driver.ResolvedSkill{
		Key:         s.Key,
		RuntimeName: name,
		Path:        dir,
		Required:    s.Required,
		Reason:      s.Reason,
		Metadata:    md,
		Digest:      digest,
	}
}

// materializationError is the error of a run whose skill s (runtime name
// name) failed to materialize with err: a materializer's refusal as it
// is, anything else a *skill.SkillMaterializationError naming the skill.
func materializationError(err error, s skill.Skill, name string) error {
	var refused refusal
	if errors.As(err, &refused) && refused.Refused() {
		return refused
	}
	// A materializer's own *SkillMaterializationError is kept as the
	// cause would be: it is replaced, not nested.
	var me *skill.SkillMaterializationError
	if errors.As(err, &me) {
		err = me.Cause
	}
	return &skill.SkillMaterializationError{Key: s.Key, RuntimeName: name, Cause: err}
}

// refusal is the error of a materializer that refuses a skill, as the
// checking materializer of package trust does: the run fails with it as
// it is, not as a *skill.SkillMaterializationError.
type refusal interface {
	error
	Refused() bool
}

// materializeOne returns the skill's absolute folder and its content
// digest (see skillcache.MaterializeContent).
func (a *Agent) materializeOne(ctx context.Context, s skill.Skill) (dir, digest string, err error) {
	return skillcache.MaterializeContent(ctx, a.materializer, s)
}

// fingerprint digests the selection: every entry's key, runtime name,
// Required, Reason, Metadata and content digest, in key order. Folder
// paths are left out so equal content gives an equal fingerprint on any
// machine.
func fingerprint(entries []driver.ResolvedSkill, digests []string) string {
	e := cache.NewEncoder()
	e.Str("agentadaptor resolved skills v1")
	e.U64(uint64(len(entries)))
	for i, s := range entries {
		e.Str(s.Key)
		e.Str(s.RuntimeName)
		e.Bool(s.Required)
		e.Str(s.Reason)
		e.U64(uint64(len(s.Metadata)))
		for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
			e.Str(k)
			e.Str(s.Metadata[k])
		}
		e.Str(digests[i])
	}
	return e.Hex()
}

// differs says how two declarations of one key differ, or returns "" when
// they are the same skill.
func differs(a, b skill.Skill) string {
	switch {
	case a.Required != b.Required:
		return fmt.Sprintf("Required is %v in one and %v in the other", a.Required, b.Required)
	case a.Reason != b.Reason:
		return fmt.Sprintf("Reason %q differs from %q", a.Reason, b.Reason)
	case !maps.Equal(withoutMark(a.Metadata), withoutMark(b.Metadata)):
		return "Metadata differs"
	}
	return skill.SourceDiff(a.Source, b.Source)
}

// withoutMark is md without the mark of skill.WithRequires, which two
// declarations of one skill may differ in (rule 3): the mark of either
// holds.
func withoutMark(md map[string]string) map[string]string {
	if _, ok := md[skill.MetadataRequires]; !ok {
		return md
	}
	md = maps.Clone(md)
	delete(md, skill.MetadataRequires)
	return md
}
