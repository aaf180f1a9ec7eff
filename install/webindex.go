package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// webIndexURL returns the index URL a web index source names (rule 15),
// and whether source is one; err is set for one written with a query, a
// fragment or user information.
func webIndexURL(source string) (string, bool, error) {
	u, ok, err := webindex.IndexURL(source)
	if err != nil {
		return "", true, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return u, ok, nil
}

// fromWebIndex reads the web index at indexURL and the skills it lists
// (rule 15): for an add (pins nil), every usable one, or with only those
// named in only (by name or subpath, which is the name) and the others
// as candidates that are not downloaded; else those of pins,
// a skill's name to the digest the lock file pins, each of which the
// index must still name with that digest (a sync). Each skill is
// downloaded and its SHA-256 checked against the index's before it is
// read; an entry the index spells wrongly, or whose download differs, is
// a candidate with that problem. cleanup removes what was downloaded.
func (in *Installer) fromWebIndex(ctx context.Context, indexURL string, pins map[string]string, only []string) (_ []candidate, cleanup func(), _ error) {
	ix, err := in.readWebIndex(ctx, indexURL)
	if err != nil {
		return nil, nil, err
	}
	return in.webIndexSkills(ctx, ix, pins, only)
}

// webIndexSkills is fromWebIndex of the index ix, read already.
func (in *Installer) webIndexSkills(ctx context.Context, ix *webindex.Index, pins map[string]string, only []string) (_ []candidate, cleanup func(), _ error) {
	indexURL := ix.URL
	pins = maps.Clone(pins) // what is left in it is not in the index
	tmp, err := os.MkdirTemp("", "agentskills-webindex-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	var out []candidate
	fail := func(err error) ([]candidate, func(), error) {
		cleanup()
		return nil, nil, err
	}
	if pins == nil {
		for _, s := range ix.Skipped {
			name := s.Name
			if webindex.CheckName(name) != nil {
				name = "" // labelled by its reason, never used as a folder
			}
			out = append(out, candidate{source: indexURL, subpath: name, problem: "the web index lists it wrongly: " + s.Reason})
		}
	}
	for i, s := range ix.Skills {
		pin, wanted := pins[s.Name]
		if pins != nil && !wanted {
			continue
		}
		if pins != nil && s.Digest != pin {
			return fail(fmt.Errorf("%s: %w: the web index now names %s for skill %s; the lock file pins %s (add it again to install what the index names now)",
				indexURL, ErrDrift, s.Digest, s.Name, pin))
		}
		if len(only) > 0 && !slices.Contains(only, s.Name) {
			out = append(out, candidate{name: s.Name, source: indexURL, subpath: s.Name, pin: s.Digest, problem: "not downloaded: not among the skills chosen"})
			continue
		}
		delete(pins, s.Name)
		if err := in.checkArtifact(indexURL, s); err != nil {
			return fail(err)
		}
		c, err := in.webIndexSkill(ctx, indexURL, s, filepath.Join(tmp, fmt.Sprint(i)))
		if err != nil {
			return fail(err)
		}
		out = append(out, c)
	}
	if len(pins) > 0 {
		name := slices.Sorted(maps.Keys(pins))[0]
		pin := pins[name]
		return fail(fmt.Errorf("%s: %w: it no longer lists skill %s (the lock file pins %s); remove it, or add another", indexURL, ErrDrift, name, pin))
	}
	return out, cleanup, nil
}

// readWebIndex downloads and parses the index at indexURL.
func (in *Installer) readWebIndex(ctx context.Context, indexURL string) (*webindex.Index, error) {
	file, remove, _, err := in.downloadAtMost(ctx, indexURL, validators{}, webindex.MaxIndexSize)
	if err != nil {
		if errors.Is(err, ErrSourceUnavailable) {
			err = fmt.Errorf("%w (a web index is read from the site's %s)", err, webindex.Path)
		}
		return nil, err
	}
	defer remove()
	data, err := readfile.Small(file, webindex.MaxIndexSize)
	if err != nil {
		return nil, fmt.Errorf("web index %s: %w: larger than %d bytes, or unreadable: %w", indexURL, ErrInvalidSource, webindex.MaxIndexSize, err)
	}
	ix, err := webindex.Parse(data, indexURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return ix, nil
}

// checkArtifact checks the URL of a skill's artifact against the policy
// as a pinned URL source (Trust rule 1): an index on an allowed site must
// not bring content from a host the policy does not allow, nor climb out
// of an allowed folder with a '..' segment, percent-encoded ones too,
// which URL resolution keeps and a server may resolve.
func (in *Installer) checkArtifact(indexURL string, s webindex.Skill) error {
	if in.trust == nil {
		return nil
	}
	if u, err := url.Parse(s.Resolved); err != nil || sourceloc.HasDotSegment(u.Path) {
		return refusedBy(indexURL, fmt.Sprintf("skill %s is at %s, whose path has a '..' segment; the policy is checked against the path as written, so the index must name it without", s.Name, s.Resolved), nil)
	}
	err := in.trust.effectivePolicy().Check(source.Origin{Kind: source.URL, Location: s.Resolved, Pinned: true, Display: s.Resolved})
	if err != nil {
		return refusedBy(indexURL, fmt.Sprintf("skill %s is at %s", s.Name, s.Resolved), err)
	}
	return nil
}

// webIndexSkill downloads the artifact of s, checks it against its
// digest, and makes it a skill folder under dir: a SKILL.md, or the
// archive extracted under the cache's rules and limits, whose root must
// hold the skill. A download that differs from the digest, an archive
// without a SKILL.md at its root, and a skill whose SKILL.md names
// another skill are candidates with that problem; an archive that breaks
// a rule fails the whole source (rule 3).
func (in *Installer) webIndexSkill(ctx context.Context, indexURL string, s webindex.Skill, dir string) (candidate, error) {
	c := candidate{source: indexURL, subpath: s.Name, pin: s.Digest}
	file, remove, err := in.download(ctx, s.Resolved)
	if err != nil {
		return c, err
	}
	defer remove()
	if got, err := fileDigest(file); err != nil || got != s.Digest {
		c.problem = fmt.Sprintf("its download from %s has digest %s, but the web index names %s; refusing it (the site changed one without the other, or something altered it on the way)", s.Resolved, got, s.Digest)
		c.integrity = err == nil
		return c, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return c, err
	}
	if s.Type == webindex.TypeSkillMD {
		data, err := readfile.Small(file, in.cache.Limits().MaxFileSize)
		if err != nil {
			return c, fmt.Errorf("%s: skill %s: %w: %w", indexURL, s.Name, ErrInvalidSource, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), data, 0o644); err != nil {
			return c, err
		}
		c.dir = dir
	} else {
		f, err := os.Open(file)
		if err != nil {
			return c, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return c, err
		}
		found, err := in.extractAndFind(ctx, f, fi.Size(), dir, nil, indexURL+" (skill "+s.Name+")", "", []string{""})
		if err != nil {
			return c, err
		}
		if len(found) == 0 {
			c.problem = "its archive has no SKILL.md at its root, where the web index format puts it"
			return c, nil
		}
		c.dir, c.problem = found[0].dir, found[0].problem
	}
	if c.problem == "" {
		checked := []candidate{c}
		in.checkAll(ctx, checked, "")
		c = checked[0]
		if c.problem == "" && c.name != s.Name {
			c.problem = fmt.Sprintf("the web index names it %s, but its SKILL.md names %s", s.Name, c.name)
		}
	}
	return c, nil
}

// syncWebIndex reads the skills names of a web index recorded at pin for
// a sync (rule 15).
func (in *Installer) syncWebIndex(ctx context.Context, source, pin string, names []string, lock *lockFile, st *sourceTrust) (*sourceSkills, error) {
	pins := map[string]string{}
	for _, name := range names {
		pins[lock.Skills[name].Subpath] = pin
	}
	cands, cleanup, err := in.fromWebIndex(ctx, source, pins, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted(ctx, "nothing was changed")
		}
		return nil, err
	}
	if err := tampered(cands); err != nil {
		cleanup()
		return nil, err
	}
	r := &sourceSkills{source: source, pin: pin, skills: cands, cleanup: cleanup}
	in.checkAll(ctx, r.skills, pin)
	st.mark(r.skills)
	return r, nil
}

// tampered is the error of the first of cands whose download did not
// match the index's digest, or nil: a sync or an update of a recorded
// skill fails with source.ErrIntegrity (rule 15).
func tampered(cands []candidate) error {
	for _, c := range cands {
		if c.integrity {
			return fmt.Errorf("skill %s in %s: %w: %s", c.label(), c.where(), source.ErrIntegrity, c.problem)
		}
	}
	return nil
}

// fileDigest is the digest of the file at name as an index writes one.
func fileDigest(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// isWebIndex reports whether the recorded source src is a web index.
func isWebIndex(src string) bool {
	_, ok, err := webIndexURL(src)
	return ok && err == nil
}

// checkWebIndex is checkGroup of a web index (rules 14 and 15): the
// index is read once; a skill whose digest it still names is current,
// and those of the others are downloaded, checked against the digests
// named now, and compared.
func (in *Installer) checkWebIndex(ctx context.Context, src string, rows []Outdated) error {
	ix, err := in.readWebIndex(ctx, src)
	if err != nil {
		return err
	}
	pins := map[string]string{}
	var moved []*Outdated
	for i := range rows {
		o := &rows[i]
		s, ok := ix.Lookup(o.Subpath)
		switch {
		case !ok:
			o.State, o.Reason = OutdatedChanged, fmt.Sprintf("%s no longer lists skill %s", src, o.Subpath)
		case s.Digest == o.Pin:
			o.Now, o.State, o.NewDigest = s.Digest, OutdatedCurrent, o.Digest
		default:
			o.Now = s.Digest
			pins[o.Subpath] = s.Digest
			moved = append(moved, o)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	cands, cleanup, err := in.webIndexSkills(ctx, ix, pins, nil)
	if err != nil {
		return err
	}
	defer cleanup()
	in.checkAll(ctx, cands, "")
	for _, o := range moved {
		in.compareOne(ctx, cands, o)
		if o.State == OutdatedCurrent {
			o.State = OutdatedMoved
		}
	}
	return nil
}

// readWebIndexNow is readNow of a web index: the skills names at the
// digests the index names now (rule 15).
func (in *Installer) readWebIndexNow(ctx context.Context, lock *lockFile, src string, names []string, st *sourceTrust) (*sourceSkills, error) {
	ix, err := in.readWebIndex(ctx, src)
	if err != nil {
		return nil, err
	}
	pins := map[string]string{}
	for _, name := range names {
		sub := lock.Skills[name].Subpath
		s, ok := ix.Lookup(sub)
		if !ok {
			return nil, fmt.Errorf("%s: %w: it no longer lists skill %s; remove it, or add another", src, ErrInvalidSource, sub)
		}
		pins[sub] = s.Digest
	}
	r := &sourceSkills{source: src}
	if r.skills, r.cleanup, err = in.webIndexSkills(ctx, ix, pins, nil); err != nil {
		return nil, err
	}
	if err := tampered(r.skills); err != nil {
		r.cleanup()
		return nil, err
	}
	in.checkAll(ctx, r.skills, "")
	st.mark(r.skills)
	return r, nil
}
