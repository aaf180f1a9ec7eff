package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
)

// Kept runs live in Out/.runs/KEY/, KEY the SHA-256 of a runKey's (or a
// triggerKey's) JSON: what determines the run. A run is written in a
// temporary folder beside them and renamed to its key whole, its
// run.json written last, so that a crash leaves no half run: a folder
// without a run.json of its own key is not a kept run.
const (
	runsDir   = ".runs"
	runMarker = "run.json"
	// deletedFile lists the case files the agent removed (or replaced by
	// something that is not a regular file), one slash-separated place a
	// line: a workspace rebuilt from the case's files and outputs/ leaves
	// them out.
	deletedFile = "deleted.txt"
	// gradingsDir holds a kept run's gradings, gradings/GKEY.json, GKEY
	// the digest of a gradingKey.
	gradingsDir = "gradings"
)

// agentKey is the part of a key that names the agent.
type agentKey struct {
	ID       string          `json:"id"`
	Version  string          `json:"version"`
	Model    string          `json:"model"`
	Settings driver.Settings `json:"settings"`
}

func agentKeyOf(a *Agent) *agentKey {
	if a == nil {
		return nil
	}
	return &agentKey{ID: a.ID, Version: a.Version, Model: a.Model, Settings: a.Settings}
}

// runKey is what determines one run of a case.
type runKey struct {
	Kind string `json:"kind"` // "case"
	// Skill is the configuration's skill (its content digest, key and
	// metadata: see staged.identity), "" for without_skill.
	Skill  string   `json:"skill"`
	Agent  agentKey `json:"agent"`
	Prompt string   `json:"prompt"`
	// Files is the digest of the case's files and places.
	Files string `json:"files"`
	Run   int    `json:"run"`
}

// triggerKey is what determines one run of a trigger query.
type triggerKey struct {
	Kind  string `json:"kind"` // "trigger"
	Skill string `json:"skill"`
	// Others are the other skills' identities, sorted.
	Others []string `json:"others"`
	Agent  agentKey `json:"agent"`
	Query  string   `json:"query"`
	Run    int      `json:"run"`
}

// gradingFormat is the version of the gradings kept: a change of how
// an answer or a command is graded raises it, and every kept grading is
// made again.
const gradingFormat = 2

// gradingKey is what determines a run's grading.
type gradingKey struct {
	Format         int           `json:"format"`
	Run            string        `json:"run"`
	ExpectedOutput string        `json:"expected_output"`
	Expectations   []Expectation `json:"expectations"`
	Judge          *agentKey     `json:"judge"`
	// SkillDir is the content digest of the skill whose folder is the
	// commands' SKILL_DIR, for a case with a command expectation.
	SkillDir string `json:"skill_dir,omitempty"`
	// CommandTimeoutMS bounds the commands, for a case with one.
	CommandTimeoutMS int64 `json:"command_timeout_ms,omitempty"`
}

// gradingKeyOf is the key of the grading of the run of key run, of case
// c, by judge; skillDigest is the content digest of the skill whose
// folder is the commands' SKILL_DIR.
func (e *Evaluator) gradingKeyOf(run string, c Case, judge *Agent, skillDigest string) string {
	gk := gradingKey{Format: gradingFormat, Run: run, ExpectedOutput: c.ExpectedOutput, Expectations: c.Expectations, Judge: agentKeyOf(judge)}
	if hasCommand(c) {
		gk.SkillDir = skillDigest // a command may run what SKILL_DIR holds
		gk.CommandTimeoutMS = e.cfg.commandTimeout.Milliseconds()
	}
	return digestOf(gk)
}

// digestOf returns the SHA-256 of v's JSON, in hex.
func digestOf(v any) string {
	sum := sha256.Sum256(mustJSON(v))
	return hex.EncodeToString(sum[:])
}

// mustJSON is v's JSON, v plain data.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("eval: JSON of %T: %v", v, err))
	}
	return b
}

// marker is a kept run's run.json: its key and the fields it was made of.
type marker struct {
	Key     string          `json:"key"`
	Fields  json.RawMessage `json:"fields"`
	Trigger *bool           `json:"triggered,omitempty"`
}

// readMarker returns the run.json of the kept run dir, when it is one of
// key.
func readMarker(dir, key string) (*marker, bool) {
	b, err := readSmall(filepath.Join(dir, runMarker))
	if err != nil {
		return nil, false
	}
	var m marker
	if json.Unmarshal(b, &m) != nil || m.Key != key {
		return nil, false
	}
	return &m, true
}

// readSmall reads a file of the tool's own, up to 16 MiB: only a
// regular file, not a link (see readfile.OpenNoLink), a FIFO or a
// device.
func readSmall(name string) ([]byte, error) {
	root, err := os.OpenRoot(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	b, err := readfile.InRootNoLink(root, filepath.Base(name), keptFileLimit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// errTooLarge is a file of a run over keptFileLimit.
var errTooLarge = errors.New("too large")

// keptFileLimit is the most a file of a kept run (run.json, a grading,
// response.md, transcript.jsonl) may hold: 16 MiB.
const keptFileLimit = 16 << 20

// writeJSON writes v to name, indented, replacing it whole.
func writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteUnflushed(name, append(b, '\n'), 0o644)
}

// readJSON reads name into v.
func readJSON(name string, v any) error {
	b, err := readSmall(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// publish moves the finished run staged to final, Out/.runs/KEY,
// replacing what is there: a run of the same key (made again by Fresh,
// or by another job of the same Run), or a folder that is no kept run
// (one whose files were damaged).
//
// Processes publishing one final at once (units of one key, with
// Fresh) may move each other's aside: each tries again, a few times,
// and the last rename stands.
func publish(staged, final string) error {
	for attempt := 0; ; attempt++ {
		err := os.Rename(staged, final)
		if err == nil || !isExist(err) || attempt >= 10 {
			return err
		}
		old, err := os.MkdirTemp(filepath.Dir(final), ".old-")
		if err != nil {
			return err
		}
		err = os.Rename(final, filepath.Join(old, "run"))
		os.RemoveAll(old)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
}

// isExist reports whether err is a rename's over a folder that is not
// empty.
func isExist(err error) bool {
	return errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}
