package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/source"
)

// sourceMemo is what the skill cache remembers of a published source
// read at a pin (rule 13): every skill found there, each with the
// content digest of its tree in the cache, so that an Add of the same
// source at the same pin takes them from the cache (recalledSource).
type sourceMemo struct {
	Source string      `json:"source"`
	Pin    string      `json:"pin"`
	Skills []memoSkill `json:"skills"`
}

// memoSkill is one skill of a sourceMemo: what discovery found of it
// (the checks run again on the cached tree).
type memoSkill struct {
	Name    string   `json:"name"`
	Subpath string   `json:"subpath,omitempty"`
	Digest  string   `json:"digest"`
	Plugins []string `json:"plugins,omitempty"`
	Within  string   `json:"within,omitempty"`
	// Needs, NeedsProblem and Foreign are what its plugins' dependencies
	// make of it (rule 12).
	Needs        []string     `json:"needs,omitempty"`
	NeedsProblem string       `json:"needs_problem,omitempty"`
	Foreign      []foreignDep `json:"foreign,omitempty"`
}

// maxSourceMemo bounds a memo read back: one larger is not used.
const maxSourceMemo = 8 << 20

// sourceMemoKey names the memo of the source rec (of the last pin
// remembered): a file under the cache's .pins folder named by a SHA-256
// of rec.
func sourceMemoKey(rec string) string {
	sum := sha256.Sum256([]byte("source\x00" + rec))
	return hex.EncodeToString(sum[:]) + ".source"
}

// rememberSources writes the memo of every published source of sources
// whose skills all went into the skill cache (digests, by candidate of
// use): a source with a skill left out (not selected, refused, broken)
// is not remembered, and is read again the next time. Failing to write a
// memo costs a download later, nothing more.
//
// A memo is written unflushed (atomicfile.WriteUnflushed), sealed (a
// SHA-256 of its body inside it, checked by recalledSource): a memo may
// be larger than a block of the file system, so a crash may leave one
// with the new version's first blocks and the old one's others, which
// would name the new pin and the old pin's trees; sealed, it is whole,
// missing, or one recalledSource does not use, which costs a download,
// as a failed write does. It also names its own key (its source and
// pin, compared by recalledSource), and each tree it names is looked up
// in the cache.
func (in *Installer) rememberSources(sources []*sourceSkills, use []*candidate, digests map[*candidate]string) {
	root := in.cache.Root()
	if root == "" {
		return
	}
	for _, r := range sources {
		if r.pin == "" { // only a published source has one pin for all
			continue
		}
		m := sourceMemo{Source: r.source, Pin: r.pin}
		for _, c := range r.skills {
			i := slices.IndexFunc(use, func(u *candidate) bool { return u.source == c.source && u.subpath == c.subpath })
			if i < 0 || digests[use[i]] == "" {
				m.Skills = nil
				break
			}
			m.Skills = append(m.Skills, memoSkill{Name: c.name, Subpath: c.subpath, Digest: digests[use[i]], Plugins: c.plugins, Within: c.within,
				Needs: c.needs, NeedsProblem: c.needsProblem, Foreign: c.foreign})
		}
		if len(m.Skills) == 0 {
			continue
		}
		b, err := seal(m)
		if err != nil {
			continue
		}
		dir := filepath.Join(root, pinsDir)
		if os.MkdirAll(dir, 0o755) == nil {
			atomicfile.WriteUnflushed(filepath.Join(dir, sourceMemoKey(r.source)), b, 0o644)
		}
	}
}

// recalledSource returns the skills of the source rec at pin from the
// skill cache, when rememberSources recorded them and the cache holds
// every tree the memo names; else ok is false and the source is read
// from the network. A memo that cannot be read, does not parse, is not
// sealed with the sum of its body, names another source or pin, or
// names a path that is not a plain relative one is not used.
func (in *Installer) recalledSource(ctx context.Context, rec, pin string) (_ []candidate, ok bool) {
	root := in.cache.Root()
	if root == "" {
		return nil, false
	}
	b, err := readfile.Small(filepath.Join(root, pinsDir, sourceMemoKey(rec)), maxSourceMemo)
	if err != nil {
		return nil, false
	}
	var m sourceMemo
	if !unseal(b, &m) || m.Source != rec || m.Pin != pin || len(m.Skills) == 0 {
		return nil, false
	}
	out := make([]candidate, 0, len(m.Skills))
	for _, s := range m.Skills {
		if checkName(s.Name) != nil || !memoPath(s.Subpath) || !memoPath(s.Within) || slices.ContainsFunc(s.Needs, func(p string) bool { return !memoPath(p) }) {
			return nil, false
		}
		dir, ok := skillcache.Lookup(ctx, in.cache, s.Digest, s.Name)
		if !ok {
			return nil, false
		}
		out = append(out, candidate{dir: dir, source: rec, subpath: s.Subpath, plugins: s.Plugins, within: s.Within,
			needs: s.Needs, needsProblem: s.NeedsProblem, foreign: s.Foreign})
	}
	return out, true
}

// memoPath reports whether p, a subpath of a memo, is "" or a clean
// relative slash path inside the source ("." for within's root).
func memoPath(p string) bool {
	return p == "" || p == "." || fs.ValidPath(p)
}

// lookerUp is a source.Remote whose Resolve downloads the content too
// (git), and whose LookUp resolves the reference alone.
type lookerUp interface {
	LookUp(ctx context.Context) (string, error)
}

// remembers reports whether the skill cache holds a memo of the source
// rec, at whatever pin.
func (in *Installer) remembers(rec string) bool {
	root := in.cache.Root()
	if root == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(root, pinsDir, sourceMemoKey(rec)))
	return err == nil && fi.Mode().IsRegular()
}

// recall is how fromRemote reads a source the skill cache may
// remember: resolve looks the reference up, and at, given the verified
// pin, sets skills and reports true when the cache has them.
type recall struct {
	resolve func(context.Context) (string, error)
	at      func(pin string) bool
	skills  []candidate
}

// fromRemoteRecalled reads a published source for an Add: it resolves
// the reference and verifies the pin (# Trust), and then takes the
// skills from the skill cache when it remembers the source at that pin
// (recalledSource), else downloads the content as fromRemote does, on
// one progress line and under one watchdog (rule 10). A git source that
// the cache remembers is looked up without fetching anything (LookUp,
// git ls-remote): when its pin moved, the content is fetched then.
func (in *Installer) fromRemoteRecalled(ctx context.Context, rs source.Remote, rec string, st *sourceTrust) (string, []candidate, func(), error) {
	rc := &recall{resolve: rs.Resolve}
	if l, ok := rs.(lookerUp); ok && in.remembers(rec) {
		rc.resolve = l.LookUp // the content is likely in the cache
	}
	rc.at = func(pin string) bool {
		var ok bool
		rc.skills, ok = in.recalledSource(ctx, rec, pin)
		return ok
	}
	return in.fromRemote(ctx, rs, rec, "", nil, st, rc)
}

// materializePinned puts the skills of cands into the skill cache, a few
// at a time (stageWorkers: their file system calls overlap), and points
// each at its tree there, as keepPinned says. A skill extracted into the
// cache's staging area (fromArchive) whose folder holds no other skill
// of cands and lies in none is moved into the cache (published), not
// copied (movable). It returns the content digest of each, or the error
// of the first skill in cands' order that fails, as one at a time would:
// a skill after a failed one is not started.
func (in *Installer) materializePinned(ctx context.Context, cands []*candidate) (map[*candidate]string, error) {
	move := movable(cands)
	dirs := make([]string, len(cands))
	sums := make([]string, len(cands))
	errs := make([]error, len(cands))
	var firstFailed atomic.Int64 // the lowest index that failed
	firstFailed.Store(int64(len(cands)))
	var g errgroup.Group
	g.SetLimit(stageWorkers)
	for i, c := range cands {
		g.Go(func() error {
			if int64(i) > firstFailed.Load() {
				return nil
			}
			var published error // a failed publish puts the folder back, or says it could not
			if move[c] {
				if dirs[i], sums[i], published = in.publishExtracted(c); published == nil {
					return nil
				}
			}
			if dirs[i], sums[i], errs[i] = in.materialize(ctx, c); errs[i] != nil {
				if published != nil {
					errs[i] = fmt.Errorf("%w (after moving it into the cache failed: %v)", errs[i], published)
				}
				for {
					f := firstFailed.Load()
					if int64(i) >= f || firstFailed.CompareAndSwap(f, int64(i)) {
						break
					}
				}
			}
			return nil
		})
	}
	g.Wait()
	if f := firstFailed.Load(); f < int64(len(cands)) {
		return nil, errs[f]
	}
	digests := make(map[*candidate]string, len(cands))
	for i, c := range cands {
		c.dir, digests[c] = dirs[i], sums[i]
	}
	return digests, nil
}

// movable returns the skills of cands whose folder in the extraction
// they were read from can leave it for the skill cache: extracted into
// the cache's staging area, and with no other skill of cands from the
// same extraction in their folder, or holding them in its, whose files
// would go with it. Nothing else is read from an extraction once its
// skills are in the cache.
func movable(cands []*candidate) map[*candidate]bool {
	out := make(map[*candidate]bool)
	for _, c := range cands {
		if c.extracted == nil || c.extracted.repo == nil || c.name == "" {
			continue
		}
		out[c] = !slices.ContainsFunc(cands, func(o *candidate) bool {
			return o != c && o.extracted == c.extracted && (inFolder(o.subpath, c.subpath) || inFolder(c.subpath, o.subpath))
		})
	}
	return out
}

// inFolder reports whether the folder sub of a source is dir or lies in
// it ("" is the source's root).
func inFolder(sub, dir string) bool {
	return dir == "" || sub == dir || strings.HasPrefix(sub, dir+"/")
}

// publishExtracted moves the skill c's folder from its extraction into
// the skill cache (skillcache.Repository.Publish), and returns its tree
// there and its content digest, as materialize does.
func (in *Installer) publishExtracted(c *candidate) (string, string, error) {
	dir, d, err := c.extracted.repo.Publish(c.subpath, c.name)
	if err != nil {
		return "", "", err
	}
	in.rememberVerdict(c, d)
	return dir, d, nil
}
