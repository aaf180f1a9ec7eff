package adaptor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// ErrThreadChanged identifies a thread that cannot resume its session
// because the skills or the workspace are no longer those the session
// started with. The error is a *ThreadChangedError.
var ErrThreadChanged = errors.New("agentadaptor: thread's skills or workspace changed")

// A Thread is a conversation with the agent that goes on across runs: each
// run resumes the agent's session of the one before, as long as that is
// sound. Get one with [Agent.Thread].
//
// # Thread compatibility
//
// A session is resumed only with the skills and the workspace it started
// with, because an agent that resumes remembers what its skills told it and
// where it worked. The [ThreadStore] keeps, for each thread key, the
// session id, the skill fingerprint and the workspace of its last run.
// Before a run, the thread resolves the skills as [Agent.Run] does and
// compares:
//
//  1. Nothing stored: the run starts a new session.
//  2. Same fingerprint and workspace: the run resumes the stored session.
//  3. Anything differs: a thread opened with [ResumeOnly] fails with a
//     *ThreadChangedError that says what changed, before the driver is
//     called; any other thread starts a new session and says so with a
//     [ThreadRestartedEvent].
//  4. The agent rejects the resume (driver.ErrResumeRejected, for example a
//     session the agent no longer has, or a stored id that does not have
//     the form of the agent's ids, refused before the start): a ResumeOnly
//     thread returns that error; any other starts a new session, again
//     with a ThreadRestartedEvent.
//
// After a run that reports a session id the store is updated, so the next
// run resumes the new session. Runs of one thread on one Agent take turns;
// a Thread is safe for concurrent use, and threads with different keys run
// in parallel.
type Thread struct {
	a          *Agent
	key        string
	resumeOnly bool
}

// ThreadOption configures a [Thread].
type ThreadOption func(*threadConfig)

// threadConfig is what the options of [Agent.Thread] set.
type threadConfig struct {
	resumeOnly bool
}

// ResumeOnly makes a thread refuse to start a new session when its stored
// one cannot be resumed (see "Thread compatibility" on [Thread]). Default:
// a thread starts afresh and reports a [ThreadRestartedEvent].
func ResumeOnly() ThreadOption { return func(c *threadConfig) { c.resumeOnly = true } }

// Thread returns the thread of the given key, kept in the agent's
// [ThreadStore] (see [WithThreadStore]).
func (a *Agent) Thread(key string, opts ...ThreadOption) *Thread {
	var c threadConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return &Thread{a: a, key: key, resumeOnly: c.resumeOnly}
}

// Run runs the agent once in the thread: it resolves the skills, resumes
// the stored session when the rules of "Thread compatibility" allow, runs
// the driver and records the session for the next run. Options are those
// of [Agent.Run]; WithResume is refused, as the thread chooses the session.
// A blank key, or one that begins with "session:" (see [SessionKey]), is
// refused.
func (t *Thread) Run(ctx context.Context, prompt string, opts ...CallOption) (*Result, error) {
	if err := checkThreadKey(t.key); err != nil {
		return nil, err
	}
	call := t.a.call(opts)
	if call.resume != "" {
		return nil, errors.New("agentadaptor: WithResume cannot be used with a Thread, which resumes its own session")
	}
	unlock, err := t.a.lockThread(ctx, t.key)
	if err != nil {
		return nil, fmt.Errorf("agentadaptor: thread %q: waiting for its previous run: %w", t.key, err)
	}
	defer unlock()

	p, err := t.a.prepare(ctx, prompt, call)
	if err != nil {
		return nil, err
	}
	store := t.a.threads
	old, err := store.Load(ctx, t.key)
	if err != nil {
		return nil, fmt.Errorf("agentadaptor: thread %q: load: %w", t.key, err)
	}
	if old != nil && old.SessionID != "" {
		if err := old.Check(p.req.Skills, p.workspace); err != nil {
			var changed *ThreadChangedError
			if errors.As(err, &changed) {
				changed.Key = t.key
			}
			if t.resumeOnly {
				return nil, err
			}
			p.emit(&ThreadRestartedEvent{Thread: t.key, OldSession: old.SessionID, Reason: err.Error()})
		} else {
			p.req.Resume = old.SessionID
		}
	}
	res, err := t.a.execute(ctx, p)
	if err != nil && p.req.Resume != "" && errors.Is(err, driver.ErrResumeRejected) && !t.resumeOnly {
		p.emit(&ThreadRestartedEvent{Thread: t.key, OldSession: p.req.Resume, Reason: err.Error()})
		p.req.Resume = ""
		res, err = t.a.execute(ctx, p)
	}
	if res, err = t.a.recordSession(ctx, p, res, err); err != nil {
		return res, err
	}
	if res.SessionID != "" {
		if err := store.Save(ctx, t.key, res.ThreadState()); err != nil {
			return res, fmt.Errorf("agentadaptor: thread %q: save: %w", t.key, err)
		}
	}
	return res, nil
}

// threadLock is the turn of one thread key: a one-slot channel, and how
// many runs hold or wait for it.
type threadLock struct {
	turn chan struct{}
	refs int
}

// lockThread waits for the turn of the thread key on this agent, or for
// ctx. Locks of keys nobody waits for are forgotten.
func (a *Agent) lockThread(ctx context.Context, key string) (unlock func(), err error) {
	a.threadMu.Lock()
	l := a.threadLocks[key]
	if l == nil {
		l = &threadLock{turn: make(chan struct{}, 1)}
		if a.threadLocks == nil {
			a.threadLocks = make(map[string]*threadLock)
		}
		a.threadLocks[key] = l
	}
	l.refs++
	a.threadMu.Unlock()
	release := func() {
		a.threadMu.Lock()
		if l.refs--; l.refs == 0 {
			delete(a.threadLocks, key)
		}
		a.threadMu.Unlock()
	}
	select {
	case l.turn <- struct{}{}:
		return func() { <-l.turn; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// ThreadRestartedEvent says that a thread started a new session instead of
// resuming its stored one, and why.
type ThreadRestartedEvent struct {
	Thread     string `json:"thread"`
	OldSession string `json:"old_session,omitempty"`
	Reason     string `json:"reason"`
}

// Kind returns "thread_restarted".
func (*ThreadRestartedEvent) Kind() string { return "thread_restarted" }

// ThreadState is what a [ThreadStore] keeps for one thread: the session of
// its last run and what that session started with.
type ThreadState struct {
	// SessionID is the agent's session to resume.
	SessionID string `json:"session_id"`
	// Fingerprint is the skill set's driver.ResolvedSkills.Fingerprint.
	Fingerprint string `json:"fingerprint"`
	// Skills maps each skill's key to its content digest, so a change can
	// be named.
	Skills map[string]string `json:"skills"`
	// Workspace is the absolute folder the agent worked in.
	Workspace string `json:"workspace"`
	// Updated is when the state was recorded.
	Updated time.Time `json:"updated"`
}

// ThreadState returns the state that resumes r's session: its session id,
// skills and workspace.
func (r *Result) ThreadState() *ThreadState {
	return &ThreadState{
		SessionID:   r.SessionID,
		Fingerprint: r.Skills.Fingerprint,
		Skills:      skillDigests(r.Skills),
		Workspace:   r.Workspace,
		Updated:     time.Now().UTC().Truncate(time.Second),
	}
}

func skillDigests(rs driver.ResolvedSkills) map[string]string {
	m := make(map[string]string, len(rs.Entries))
	for _, e := range rs.Entries {
		m[e.Key] = e.Digest
	}
	return m
}

// Check returns nil when a run with skills in workspace may resume the
// state's session, and otherwise a *ThreadChangedError that says what
// changed.
func (s *ThreadState) Check(skills driver.ResolvedSkills, workspace string) error {
	if s.Fingerprint == skills.Fingerprint && s.Workspace == workspace {
		return nil
	}
	e := &ThreadChangedError{SessionID: s.SessionID}
	if s.Workspace != workspace {
		e.OldWorkspace, e.Workspace = s.Workspace, workspace
	}
	if s.Fingerprint != skills.Fingerprint {
		now := skillDigests(skills)
		for _, k := range slices.Sorted(maps.Keys(now)) {
			was, ok := s.Skills[k]
			switch {
			case !ok:
				e.Added = append(e.Added, k)
			case was != now[k]:
				e.Changed = append(e.Changed, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(s.Skills)) {
			if _, ok := now[k]; !ok {
				e.Removed = append(e.Removed, k)
			}
		}
		if len(e.Added)+len(e.Removed)+len(e.Changed) == 0 {
			e.Declarations = true
		}
	}
	return e
}

// ThreadChangedError reports a session that cannot be resumed because its
// skills or its workspace changed.
type ThreadChangedError struct {
	// Key is the thread's key; empty when the check was made outside a
	// Thread.
	Key string
	// SessionID is the session that cannot be resumed.
	SessionID string
	// Added, Removed and Changed are the keys of the skills that are new,
	// gone, or have other content than when the session started.
	Added, Removed, Changed []string
	// Declarations is true when the same skills with the same content are
	// declared differently (Required, Reason or Metadata).
	Declarations bool
	// OldWorkspace and Workspace are set when the workspace changed.
	OldWorkspace, Workspace string
}

// Error says what changed.
func (e *ThreadChangedError) Error() string {
	var what []string
	for _, c := range []struct {
		verb string
		keys []string
	}{{"added", e.Added}, {"removed", e.Removed}, {"changed", e.Changed}} {
		if len(c.keys) > 0 {
			what = append(what, fmt.Sprintf("skills %s: %s", c.verb, strings.Join(c.keys, ", ")))
		}
	}
	if e.Declarations {
		what = append(what, "skill declarations changed (Required, Reason or Metadata)")
	}
	if e.OldWorkspace != "" || e.Workspace != "" {
		what = append(what, fmt.Sprintf("workspace was %s, now %s", e.OldWorkspace, e.Workspace))
	}
	subject := "session " + e.SessionID
	if e.Key != "" {
		subject = fmt.Sprintf("thread %q (session %s)", e.Key, e.SessionID)
	}
	return fmt.Sprintf("%s cannot be resumed: %s; run with the session's skills and workspace, or start a new session",
		subject, strings.Join(what, "; "))
}

// Is reports whether target is [ErrThreadChanged].
func (e *ThreadChangedError) Is(target error) bool { return target == ErrThreadChanged }

// ThreadStore keeps the state of threads between runs, by thread key, and
// the record of each session an agent's runs report, by [SessionKey] of
// its id, which [WithResume] checks. A store thus grows by one small
// record per session: a long-lived program that starts many sessions may
// give its agent a store of its own that forgets old ones.
// Implementations must be safe for concurrent use.
type ThreadStore interface {
	// Load returns the state stored for key, or nil and no error when
	// there is none.
	Load(ctx context.Context, key string) (*ThreadState, error)
	// Save stores st for key, replacing what was there.
	Save(ctx context.Context, key string, st *ThreadState) error
}

// MemoryThreadStore is a [ThreadStore] in memory, for one process. The
// zero value is ready to use.
type MemoryThreadStore struct {
	mu sync.Mutex
	m  map[string]ThreadState
}

var _ ThreadStore = (*MemoryThreadStore)(nil)

// Load returns a copy of the state stored for key.
func (s *MemoryThreadStore) Load(_ context.Context, key string) (*ThreadState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[key]
	if !ok {
		return nil, nil
	}
	st.Skills = maps.Clone(st.Skills)
	return &st, nil
}

// Save stores a copy of st for key.
func (s *MemoryThreadStore) Save(_ context.Context, key string, st *ThreadState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]ThreadState)
	}
	c := *st
	c.Skills = maps.Clone(st.Skills)
	s.m[key] = c
	return nil
}

// FileThreadStore is a [ThreadStore] in a folder: one JSON file per key,
// named by the key's SHA-256, so any key is safe as a name. Files are
// written atomically (a temporary file renamed into place) with mode 0600,
// and the folder is created with mode 0700, as thread state names the
// user's sessions and folders. Processes may share a folder: the last
// writer of a key wins.
type FileThreadStore struct {
	dir string
}

var _ ThreadStore = (*FileThreadStore)(nil)

// NewFileThreadStore returns a store that keeps its files in dir, created
// on the first Save.
func NewFileThreadStore(dir string) *FileThreadStore { return &FileThreadStore{dir: dir} }

// fileState is a stored state with its key, so a file can be checked to
// belong to the key that named it.
type fileState struct {
	Key string `json:"key"`
	ThreadState
}

func (s *FileThreadStore) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:])+".json")
}

// Load reads the state stored for key. A file that cannot be decoded, or
// that holds another key, is an error.
func (s *FileThreadStore) Load(_ context.Context, key string) (*ThreadState, error) {
	b, err := os.ReadFile(s.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var fst fileState
	if err := json.Unmarshal(b, &fst); err != nil {
		return nil, fmt.Errorf("thread file %s: %w (remove it to forget the thread)", s.path(key), err)
	}
	if fst.Key != key {
		return nil, fmt.Errorf("thread file %s holds key %q, not %q (remove it to forget the thread)", s.path(key), fst.Key, key)
	}
	return &fst.ThreadState, nil
}

// Save writes st for key, atomically and durably: after a crash or a
// power loss the file holds the old state or the new one, whole.
func (s *FileThreadStore) Save(_ context.Context, key string, st *ThreadState) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(fileState{Key: key, ThreadState: *st}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path(key), append(b, '\n'), 0o600)
}
