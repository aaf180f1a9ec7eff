package skill

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/driver"
)

// Reserved Metadata keys interpreted by the SDK and drivers. Setting
// MetadataRuntimeName on a Skill overrides the directory name the
// materializer writes and drivers mount. MetadataDisplayName provides a
// human-readable label for inspection and user interfaces.
const (
	// MetadataRuntimeName is the metadata key for the provider-visible directory name.
	MetadataRuntimeName = driver.SkillMetadataRuntimeName
	// MetadataDisplayName is the metadata key for a human-readable skill name.
	MetadataDisplayName = driver.SkillMetadataDisplayName
)

// SkillCacheRootEnv names the AGENT_ADAPTOR_SKILL_CACHE_ROOT environment
// variable. It overrides the default materializer's cache root. Drivers use
// the same location to determine which materialized directories they may
// manage, so hosts should set it consistently for the whole process.
const SkillCacheRootEnv = "AGENT_ADAPTOR_SKILL_CACHE_ROOT"

var (
	// ErrSkillKeyConflict identifies conflicting declarations of one skill key.
	ErrSkillKeyConflict = errors.New("agentadaptor: skill key defined with conflicting sources")
	// ErrSkillMaterializationFailed identifies a failure to stage a skill.
	ErrSkillMaterializationFailed = errors.New("agentadaptor: skill materialization failed")
	// ErrSkillSourceMissing identifies a skill declaration without a source.
	ErrSkillSourceMissing = errors.New("agentadaptor: skill source is required")
	// ErrSkillKeyMissing identifies a skill declaration without a key.
	ErrSkillKeyMissing = errors.New("agentadaptor: skill key is required")
	// ErrSkillNotFound identifies a catalogue key that a Provider cannot resolve.
	ErrSkillNotFound = errors.New("agentadaptor: skill not found in provider")
)

// Skill is the full description of one skill: identity (Key), origin
// (Source), Required marker, human-readable Reason, and optional Metadata.
// Skill values act as Ref, so constructor results can be passed straight to
// adaptor.WithSkills.
type Skill = driver.Skill

// Ref is what adaptor.WithSkills accepts: either a provider catalogue key
// (built with Key) or a fully-defined Skill value (built with Dir, FS,
// Inline, or Archive).
type Ref = driver.SkillRef

// Source is the open marker interface for a Skill's origin. Hosts may
// define custom Source types as long as a matching Materializer is
// installed to handle them.
type Source = driver.SkillSource

// Key returns a Ref that references a provider-side skill by its catalogue
// key. The key is resolved by the Provider installed on the agent; unknown
// keys fail the run before the driver is invoked.
func Key(key string) Ref { return driver.SkillKey(key) }

// SkillsAsRefs converts a []Skill into a []Ref so hosts can pass a scanned
// skill set into variadic options:
//
//	adaptor.WithSkills(skill.SkillsAsRefs(skills)...)
//
// The conversion preserves order and does not deep-clone nested values such
// as Metadata.
func SkillsAsRefs(skills []Skill) []Ref {
	refs := make([]Ref, len(skills))
	for i, s := range skills {
		refs[i] = s
	}
	return refs
}

// PathSource sources a skill from a local directory containing SKILL.md.
type PathSource struct {
	// Path is the skill directory.
	Path string
}

// SkillSource implements Source.
func (PathSource) SkillSource() {}

// SkillPath returns the directory consumed by a compatible materializer.
func (s PathSource) SkillPath() string { return s.Path }

// InlineSource carries a single SKILL.md document.
type InlineSource struct {
	// SkillMD is the complete SKILL.md content.
	SkillMD string
}

// SkillSource implements Source.
func (InlineSource) SkillSource() {}

// InlineSkillMD returns the SKILL.md content consumed by a compatible
// materializer.
func (s InlineSource) InlineSkillMD() string { return s.SkillMD }

// FSSource sources a skill from an io/fs.FS tree rooted at Root.
type FSSource struct {
	// FS contains the skill tree.
	FS fs.FS
	// Root locates the skill directory within FS. Empty and "." mean the FS root.
	Root string
}

// SkillSource implements Source.
func (FSSource) SkillSource() {}

// SkillFS returns the tree and root consumed by a compatible materializer.
func (s FSSource) SkillFS() (fs.FS, string) { return s.FS, s.Root }

// Dir builds a Skill sourced from a local directory that contains SKILL.md
// (and optional reference files). The skill key defaults to the directory
// basename (trailing slashes ignored; for "." it is the base name of the
// current directory); callers may override it by assigning to the returned
// Skill's Key field.
func Dir(path string) Skill {
	key := filepath.Base(filepath.Clean(path))
	if key == "." || key == ".." {
		if abs, err := filepath.Abs(path); err == nil {
			key = filepath.Base(abs)
		}
	}
	if key == string(filepath.Separator) {
		key = ""
	}
	return Skill{Key: key, Source: PathSource{Path: path}}
}

// FS builds a Skill sourced from an io/fs.FS tree rooted at root. The root
// entry must contain SKILL.md; "" or "." mean the FS root. The skill key
// defaults to the basename of root ("skill" when root is empty); callers may
// override it by assigning to the returned Skill's Key field.
func FS(fsys fs.FS, root string) Skill {
	key := path.Base(strings.TrimSuffix(root, "/"))
	if root == "" || key == "." {
		key = "skill"
	}
	return Skill{Key: key, Source: FSSource{FS: fsys, Root: root}}
}

// Inline builds a Skill whose entire content is the given SKILL.md string.
// Key is required. Skills that need auxiliary reference files should use FS
// or Archive instead.
func Inline(key, content string) Skill {
	return Skill{Key: key, Source: InlineSource{SkillMD: content}}
}

// Provider resolves catalogue keys into concrete skills for a run.
// Providers may additionally return Required skills that were not
// explicitly requested.
type Provider interface {
	// GetSkills resolves the requested catalogue keys. Implementations may also
	// include skills marked Required.
	GetSkills(ctx context.Context, keys []string) (map[string]Skill, error)
}

// Catalog extends Provider with deterministic catalogue enumeration.
type Catalog interface {
	Provider
	// Catalogue returns the skills available from the provider.
	Catalogue(ctx context.Context) ([]Skill, error)
}

// Set is a static map-backed Catalog, keyed by catalogue key. An entry whose
// Skill has an empty Key is returned with the map key filled in.
type Set map[string]Skill

var _ Catalog = Set(nil)

// GetSkills returns the requested keys the set holds plus every Required
// entry. Unknown keys are simply absent from the result; the caller decides
// whether that is an error.
func (s Set) GetSkills(ctx context.Context, keys []string) (map[string]Skill, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]Skill)
	for _, k := range keys {
		if sk, ok := s[k]; ok {
			out[k] = withKey(k, sk)
		}
	}
	for k, sk := range s {
		if sk.Required {
			out[k] = withKey(k, sk)
		}
	}
	return out, nil
}

// Catalogue returns every skill in the set, sorted by key.
func (s Set) Catalogue(ctx context.Context) ([]Skill, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]Skill, 0, len(s))
	for _, k := range slices.Sorted(maps.Keys(s)) {
		out = append(out, withKey(k, s[k]))
	}
	return out, nil
}

func withKey(k string, s Skill) Skill {
	if s.Key == "" {
		s.Key = k
	}
	return s
}

// SkillKeyConflictError reports two structurally different declarations
// with the same skill key.
type SkillKeyConflictError struct {
	// Key is the conflicting skill key.
	Key string
	// Sources describes the declarations that conflict.
	Sources []string
	// Detail contains optional diagnostic context.
	Detail string
}

// Error implements error.
func (e *SkillKeyConflictError) Error() string {
	msg := fmt.Sprintf("%v: %q", ErrSkillKeyConflict, e.Key)
	if len(e.Sources) > 0 {
		msg += " (declared by " + strings.Join(e.Sources, ", ") + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap exposes ErrSkillKeyConflict for errors.Is.
func (e *SkillKeyConflictError) Unwrap() error { return ErrSkillKeyConflict }

// SkillMaterializationError reports a failure to stage a resolved skill
// into a provider-visible directory.
type SkillMaterializationError struct {
	// Key is the logical skill key.
	Key string
	// RuntimeName is the provider-visible directory name, when known.
	RuntimeName string
	// Cause is the underlying materialization failure.
	Cause error
}

// Error implements error.
func (e *SkillMaterializationError) Error() string {
	name := ""
	if e.RuntimeName != "" && e.RuntimeName != e.Key {
		name = fmt.Sprintf(" (runtime name %q)", e.RuntimeName)
	}
	return fmt.Sprintf("agentadaptor: materialize skill %q%s: %v", e.Key, name, e.Cause)
}

// Is also classifies the error as ErrSkillMaterializationFailed.
func (e *SkillMaterializationError) Is(target error) bool {
	return target == ErrSkillMaterializationFailed
}

// Unwrap preserves the underlying materializer cause.
func (e *SkillMaterializationError) Unwrap() error { return e.Cause }
