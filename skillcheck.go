package adaptor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skillmd"
)

// ErrInvalidSkill identifies a selected skill whose SKILL.md an agent
// cannot load (see rule 7 of "Resolution" in the package doc). The error
// is an *[InvalidSkillError].
var ErrInvalidSkill = errors.New("agentadaptor: invalid skill")

// InvalidSkillError reports a selected skill whose SKILL.md an agent would
// not load: it has no front matter, or its front matter lacks a name or a
// description, or breaks another rule that agents enforce. It is returned
// before the driver is called, so no agent starts.
type InvalidSkillError struct {
	// Key is the skill's key.
	Key string
	// RuntimeName is the name of the skill's folder.
	RuntimeName string
	// Path is the skill's folder, as materialized.
	Path string
	// Err is what reading the SKILL.md found: a *skillmd.Error listing
	// every problem (errors.Is with skillmd.ErrNoSkillFile,
	// skillmd.ErrFrontMatter or skillmd.ErrRule tells which kind), or
	// an error of the file system.
	Err error
}

// Error names the skill, says what is wrong and how a SKILL.md begins.
func (e *InvalidSkillError) Error() string {
	what := e.Err.Error()
	var me *skillmd.Error
	if errors.As(e.Err, &me) && len(me.Problems) > 0 {
		msgs := make([]string, len(me.Problems))
		for i, p := range me.Problems {
			msgs[i] = p.Message
		}
		what = strings.Join(msgs, "; ")
	}
	return fmt.Sprintf("agentadaptor: skill %q cannot be loaded by an agent: %s (in %s); "+
		"a SKILL.md starts with front matter that names the skill and says when to use it: "+
		"\"---\\nname: %s\\ndescription: What it does and when to use it.\\n---\\n\", then the instructions",
		e.Key, what, filepath.Join(e.Path, skillmd.FileName), e.RuntimeName)
}

// Is reports whether target is [ErrInvalidSkill].
func (e *InvalidSkillError) Is(target error) bool { return target == ErrInvalidSkill }

// Unwrap returns Err.
func (e *InvalidSkillError) Unwrap() error { return e.Err }

// maxVerdicts bounds the skill contents an Agent remembers as valid; when
// it is reached the memory starts again empty.
const maxVerdicts = 4096

// verdicts remembers which skill contents were found loadable, by content
// digest and folder name, so a warm run reads no SKILL.md. Only valid
// contents are remembered: an invalid skill fails its run anyway. It is
// safe for concurrent use; the zero value is ready.
type verdicts struct {
	mu sync.Mutex
	ok map[string]struct{}
}

// unknown returns the places in entries of the skills whose contents
// were not found loadable before, taking the lock once.
func (v *verdicts) unknown(entries []driver.ResolvedSkill) []int {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []int
	for i, s := range entries {
		if _, ok := v.ok[s.Digest+"/"+filepath.Base(s.Path)]; s.Digest == "" || !ok {
			out = append(out, i)
		}
	}
	return out
}

// check returns nil when the skill in s.Path can be loaded by an agent,
// that is when skillmd reads it in Lenient mode (as agents read skills)
// with no problem other than warnings, and otherwise an
// *InvalidSkillError.
func (v *verdicts) check(s driver.ResolvedSkill) error {
	key := s.Digest + "/" + filepath.Base(s.Path)
	if s.Digest != "" {
		v.mu.Lock()
		_, ok := v.ok[key]
		v.mu.Unlock()
		if ok {
			return nil
		}
	}
	md, err := skillmd.ParseDir(s.Path, skillmd.WithMode(skillmd.Lenient))
	if err == nil {
		err = md.Validate()
	}
	if err != nil {
		return &InvalidSkillError{Key: s.Key, RuntimeName: s.RuntimeName, Path: s.Path, Err: err}
	}
	if s.Digest != "" {
		v.mu.Lock()
		if v.ok == nil || len(v.ok) >= maxVerdicts {
			v.ok = make(map[string]struct{})
		}
		v.ok[key] = struct{}{}
		v.mu.Unlock()
	}
	return nil
}
