package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
)

// OutdatedState is what [Installer.Outdated] found of one locked skill.
type OutdatedState string

// States of an [Outdated] skill.
const (
	// OutdatedCurrent: the source's reference names the recorded pin, or
	// the source still gives the recorded content (a URL the server says
	// is not modified, a folder with the same files, a URL#sha256=).
	OutdatedCurrent OutdatedState = "current"
	// OutdatedMoved: the reference names another pin, with the same
	// content for this skill; an update moves only the pin.
	OutdatedMoved OutdatedState = "moved"
	// OutdatedChanged: the source now gives other content (or no longer
	// holds the skill where the lock file says).
	OutdatedChanged OutdatedState = "changed"
	// OutdatedUnavailable: the source could not be read now (Reason
	// says why); the other skills are still checked.
	OutdatedUnavailable OutdatedState = "unavailable"
	// OutdatedRefused: the trust policy ([WithTrust]) does not allow the
	// source any more, so it was not read.
	OutdatedRefused OutdatedState = "refused"
	// OutdatedUnknown: a kind of source this version cannot check.
	OutdatedUnknown OutdatedState = "unknown"
)

// Outdated is one locked skill as [Installer.Outdated] finds it. Its JSON
// form is what `agentskills outdated --json` prints.
type Outdated struct {
	// Skill is the skill's name.
	Skill string `json:"skill"`
	// Source is its source as the lock file records it, and Subpath its
	// folder in it ("" for the root).
	Source  string `json:"source"`
	Subpath string `json:"subpath,omitempty"`
	// Pin is the pin the lock file records ("" for a folder or a URL).
	Pin string `json:"pin,omitempty"`
	// Now is what the source's reference names now: a commit or a
	// manifest digest; "" when the source has no pin or was not read.
	Now string `json:"now,omitempty"`
	// Version, for a source whose reference is a version range, is the
	// tag the range picks now (source.Versioned).
	Version string `json:"version,omitempty"`
	// Digest is the content digest the lock file records, and NewDigest
	// the skill's content digest at Now ("" when it was not read, or the
	// source no longer holds the skill).
	Digest    string `json:"digest"`
	NewDigest string `json:"new_digest,omitempty"`
	// State is what was found.
	State OutdatedState `json:"state"`
	// Reason says why, for a skill whose source could not be checked,
	// refused, or no longer holding it.
	Reason string `json:"reason,omitempty"`
}

// IsOutdated reports whether an update would change the skill: its pin
// moved or its content changed.
func (o Outdated) IsOutdated() bool {
	return o.State == OutdatedMoved || o.State == OutdatedChanged
}

// Outdated checks every skill the scope's lock file records against its
// source, as rule 14 says, changing nothing: no lock file is written, no
// folder touched, and no file lock taken. It returns one Outdated per
// skill, sorted by name; a source that cannot be read is reported on
// each of its skills (OutdatedUnavailable) and the others are still
// checked. The error is for a check that could not run: a lock file
// that cannot be read, or ctx ending (ErrInterrupted).
func (in *Installer) Outdated(ctx context.Context) ([]Outdated, error) {
	in.stamps.forgetDevs()
	lock, err := in.readCheckedLock()
	if err != nil {
		return nil, err
	}
	groups, bySource := sourceGroups(lock, nil)
	var out []Outdated
	for _, src := range groups {
		names := bySource[src]
		rows := make([]Outdated, len(names))
		for i, name := range names {
			e := lock.Skills[name]
			rows[i] = Outdated{Skill: name, Source: src, Subpath: e.Subpath, Pin: e.Pin, Digest: e.Digest}
		}
		in.checkGroup(ctx, lock, src, rows)
		if ctx.Err() != nil {
			return nil, interrupted(ctx, "the check is incomplete")
		}
		out = append(out, rows...)
	}
	slices.SortFunc(out, func(a, b Outdated) int { return strings.Compare(a.Skill, b.Skill) })
	return out, nil
}

// sourceGroups groups the skills the lock file records by their source
// as recorded, sorted: each source is looked up once, whatever the
// number of its skills or their pins. With only, just those skills.
func sourceGroups(lock *lockFile, only []string) ([]string, map[string][]string) {
	by := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(lock.Skills)) {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		src := lock.Skills[name].Source
		by[src] = append(by[src], name)
	}
	return slices.Sorted(maps.Keys(by)), by
}

// Kinds of recorded source, as [Installer.recordedKind] tells them.
const (
	kindPublished = "published" // GitHub, git, OCI: a reference and a pin
	kindURL       = "url"       // an http(s) archive
	kindFolder    = "folder"    // a local folder or archive file
	kindWebIndex  = "webindex"  // a web index: a digest per skill (rule 15)
)

// recordedKind tells which kind of source a lock file records, or ""
// when it is none this version knows. Outdated and Update handle each
// kind in one case of a switch on it; a new kind of source adds its
// case there.
func (in *Installer) recordedKind(src string) string {
	switch rs, err := in.parseSource(src, false); {
	case err != nil:
		return ""
	case rs != nil:
		return kindPublished
	case isWebIndex(src):
		return kindWebIndex
	case isURL(src):
		return kindURL
	case strings.Contains(src, "://"):
		return "" // a scheme this version does not read
	}
	return kindFolder
}

// checkGroup fills in rows, the skills recorded from src: what the
// source gives now (rule 14). It reads the source once.
func (in *Installer) checkGroup(ctx context.Context, lock *lockFile, src string, rows []Outdated) {
	fail := func(state OutdatedState, err error) {
		for i := range rows {
			rows[i].State, rows[i].Reason = state, err.Error()
		}
	}
	names := make([]string, len(rows))
	for i, r := range rows {
		names[i] = r.Skill
	}
	if _, err := in.checkNow(src, names, lock); err != nil {
		fail(OutdatedRefused, err)
		return
	}
	var err error
	switch in.recordedKind(src) {
	case kindPublished:
		err = in.checkPublished(ctx, src, rows)
	case kindURL:
		err = in.checkURL(ctx, lock, src, rows)
	case kindWebIndex:
		err = in.checkWebIndex(ctx, src, rows)
	case kindFolder:
		var r *sourceSkills
		if r, err = in.resolve(ctx, in.sourcePath(src), true, nil, nil); err == nil {
			defer r.cleanup()
			err = in.compare(ctx, r, rows)
		}
	default:
		fail(OutdatedUnknown, fmt.Errorf("cannot check %s: this version of agentskills does not know its kind of source", src))
		return
	}
	if err != nil {
		fail(OutdatedUnavailable, err)
	}
}

// checkPublished is checkGroup of a GitHub, git or OCI source: one
// lookup of its reference, and, only when some pin moved, one read of
// the content at the new pin.
func (in *Installer) checkPublished(ctx context.Context, src string, rows []Outdated) error {
	rs, err := in.parseSource(src, false)
	if err != nil {
		return err
	}
	now, version, err := in.lookUp(ctx, rs, src)
	if err != nil {
		return err
	}
	var moved []*Outdated
	var at []string
	for i := range rows {
		rows[i].Now, rows[i].Version = now, version
		if rows[i].Pin == now {
			rows[i].State = OutdatedCurrent
			continue
		}
		moved = append(moved, &rows[i])
		at = append(at, rows[i].Subpath)
	}
	if len(moved) == 0 {
		return nil
	}
	_, cands, cleanup, err := in.fromRemote(ctx, rs, src, now, at, nil, nil)
	if err != nil {
		return err
	}
	defer cleanup()
	in.checkAll(ctx, cands, now)
	for _, o := range moved {
		in.compareOne(ctx, cands, o)
		if o.NewDigest != "" {
			in.rememberPin(rs, now, o.Subpath, o.Skill, o.NewDigest)
		}
		if o.State == OutdatedCurrent {
			o.State = OutdatedMoved
		}
	}
	return nil
}

// lookUp resolves the reference of rs, recorded as src, once, under the
// download watchdog (rule 10), and returns the pin and, for a version
// range, the tag it picked.
func (in *Installer) lookUp(ctx context.Context, rs source.Remote, src string) (pin, version string, _ error) {
	defer rs.Close()
	ctx, w := startRemoteWatchdog(ctx, in.timeout)
	defer w.stop()
	pin, err := rs.Resolve(ctx)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", src, w.classify(ctx, err))
	}
	if v, ok := rs.(source.Versioned); ok {
		version = v.Version()
	}
	return pin, version, nil
}

// checkURL is checkGroup of an http(s) archive: one pinned with
// #sha256= is current by definition; another is asked, with the ETag and
// Last-Modified its download gave (If-None-Match, If-Modified-Since),
// whether it changed, and downloaded only when the server does not
// answer 304 Not Modified.
func (in *Installer) checkURL(ctx context.Context, lock *lockFile, src string, rows []Outdated) error {
	if isPinnedURL(src) {
		for i := range rows {
			rows[i].State, rows[i].NewDigest = OutdatedCurrent, rows[i].Digest
		}
		return nil
	}
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row.Skill
	}
	r, _, err := in.readURL(ctx, src, sharedValidators(lock, names))
	if errors.Is(err, errNotModified) {
		for i := range rows {
			rows[i].State, rows[i].NewDigest = OutdatedCurrent, rows[i].Digest
		}
		return nil
	}
	if err != nil {
		return err
	}
	defer r.cleanup()
	return in.compare(ctx, r, rows)
}

// sharedValidators are the validators the lock file records for every
// one of the skills names of one URL, or none when they differ: skills
// added from two downloads (one added before the URL changed, one
// after) are asked about together, and a 304 to the newer download's
// validators says nothing of what the older one gave.
func sharedValidators(lock *lockFile, names []string) validators {
	e := lock.Skills[names[0]]
	v := validators{etag: e.ETag, modified: e.LastModified}
	for _, name := range names[1:] {
		if e := lock.Skills[name]; e.ETag != v.etag || e.LastModified != v.modified {
			return validators{}
		}
	}
	return v
}

// readURL downloads the URL source src, asking whether it changed since
// the download that gave since, and finds its skills.
func (in *Installer) readURL(ctx context.Context, src string, since validators) (*sourceSkills, validators, error) {
	file, remove, got, err := in.downloadIf(ctx, src, since)
	if err != nil {
		return nil, got, err
	}
	defer remove()
	r := &sourceSkills{source: src, cleanup: func() {}}
	if r.skills, r.cleanup, err = in.fromArchive(ctx, file, src, "", nil, false); err != nil {
		return nil, got, err
	}
	for i := range r.skills {
		r.skills[i].got = got
	}
	in.checkAll(ctx, r.skills, "")
	return r, got, nil
}

// compare fills in rows from r, the skills their source holds now.
func (in *Installer) compare(ctx context.Context, r *sourceSkills, rows []Outdated) error {
	for i := range rows {
		in.compareOne(ctx, r.skills, &rows[i])
	}
	return nil
}

// compareOne fills in o from cands, the skills its source holds now:
// the skill of its name at its folder is materialized into the skill
// cache (where an update takes it from) and its digest compared.
func (in *Installer) compareOne(ctx context.Context, cands []candidate, o *Outdated) {
	i := slices.IndexFunc(cands, func(c candidate) bool { return c.name == o.Skill && c.subpath == o.Subpath })
	if i < 0 {
		o.State, o.Reason = OutdatedChanged, fmt.Sprintf("%s no longer holds %s where the lock file says (%s)", o.Source, o.Skill, sourceLabel(o.Source, o.Subpath))
		return
	}
	c := &cands[i]
	if c.problem != "" {
		o.State, o.Reason = OutdatedChanged, "it cannot be installed now: "+c.problem
		return
	}
	_, d, err := in.materialize(ctx, c)
	if err != nil {
		o.State, o.Reason = OutdatedUnavailable, err.Error()
		return
	}
	o.NewDigest, o.State = d, OutdatedCurrent
	if d != o.Digest {
		o.State = OutdatedChanged
	}
}

// materialize puts the skill c, as installing it copies it, into the
// skill cache under its name, and returns the cached folder and the
// content digest. When c's source was just verified at c's pin, the
// cache remembers the verdict on that content (rememberVerdict).
func (in *Installer) materialize(ctx context.Context, c *candidate) (string, string, error) {
	fsys, closeFS, err := c.tree().open()
	if err != nil {
		return "", "", fmt.Errorf("skill %s from %s: %w", c.name, c.where(), err)
	}
	defer closeFS()
	s := skill.FS(fsys, ".")
	s.Key = c.name
	s.Metadata = map[string]string{skill.MetadataRuntimeName: c.name}
	dir, d, err := in.cache.MaterializeContent(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return "", "", interrupted(ctx, "nothing was changed")
		}
		return "", "", fmt.Errorf("skill %s from %s: %w", c.name, c.where(), archiveError(err))
	}
	in.rememberVerdict(c, d)
	return dir, d, nil
}

// validators are what a server said identifies the content of a
// download: its ETag and Last-Modified headers.
type validators struct{ etag, modified string }

// maxValidator bounds an ETag or a Last-Modified that is recorded: each
// skill's lock entry carries them, and a server's header may be
// megabytes long.
const maxValidator = 256

// validator is v, a server's ETag or Last-Modified, when it is at most
// maxValidator bytes of printable ASCII, else "": one that is not is
// left out, and a check compares the content instead.
func validator(v string) string {
	if len(v) > maxValidator || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
		return ""
	}
	return v
}

// headers are the conditional request headers that ask whether the
// content changed since v was given.
func (v validators) headers() []skill.ArchiveHTTPOption {
	var out []skill.ArchiveHTTPOption
	if v.etag != "" {
		out = append(out, skill.WithArchiveHeader("If-None-Match", v.etag))
	}
	if v.modified != "" {
		out = append(out, skill.WithArchiveHeader("If-Modified-Since", v.modified))
	}
	return out
}

// errNotModified is a conditional download the server answered with 304
// Not Modified.
var errNotModified = errors.New("not modified")

// recordValidators returns a copy of c that records in got the
// validators of a successful response, and in notModified whether the
// server answered 304 Not Modified.
func recordValidators(c *http.Client, got *validators, notModified *bool) *http.Client {
	cc := *c
	rt := cc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cc.Transport = &validatorTransport{rt: rt, got: got, notModified: notModified}
	return &cc
}

// validatorTransport is the transport of a recordValidators client.
type validatorTransport struct {
	rt          http.RoundTripper
	got         *validators
	notModified *bool
}

func (t *validatorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		*t.notModified = true
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		*t.got = validators{etag: validator(resp.Header.Get("ETag")), modified: validator(resp.Header.Get("Last-Modified"))}
	}
	return resp, nil
}

// pinsDir is the folder, under the skill cache's root, of the memo
// from a published skill at a pin to its content digest (rememberPin).
const pinsDir = ".pins"

// pinKey names the memo entry of the skill name at subpath of the
// repository repo at pin: a file named by a SHA-256 of the four.
func pinKey(repo, pin, subpath, name string) string {
	sum := sha256.Sum256([]byte(repo + "\x00" + pin + "\x00" + subpath + "\x00" + name))
	return hex.EncodeToString(sum[:])
}

// rememberPin records in the skill cache that the skill name at subpath
// of rs's repository has the content digest at pin, so that an update
// following Outdated takes it from the cache without downloading it
// again. The memo is a hint: what it names is looked up in the cache,
// whose trees are checked against their digests. Failing to write it
// costs a download later, nothing more.
func (in *Installer) rememberPin(rs source.Remote, pin, subpath, name, digest string) {
	root := in.cache.Root()
	if root == "" {
		return
	}
	dir := filepath.Join(root, pinsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	atomicfile.Write(filepath.Join(dir, pinKey(rs.Repository(), pin, subpath, name)), []byte(digest), 0o644)
}

// recalledPin returns the skill cache's folder of the skill name at
// subpath of rs's repository at pin, when rememberPin recorded its
// digest and the cache still holds that tree.
func (in *Installer) recalledPin(ctx context.Context, rs source.Remote, pin, subpath, name string) (string, bool) {
	root := in.cache.Root()
	if root == "" {
		return "", false
	}
	b, err := readfile.Small(filepath.Join(root, pinsDir, pinKey(rs.Repository(), pin, subpath, name)), 128)
	if err != nil {
		return "", false
	}
	return skillcache.Lookup(ctx, in.cache, strings.TrimSpace(string(b)), name)
}
