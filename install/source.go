package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/redact"
	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source"
)

// SourceSkill is one skill a source holds, as [Installer.Contents] lists
// it and [MissingSkillsError] names it.
type SourceSkill struct {
	// Source is the source as given, without credentials.
	Source string `json:"source"`
	// Name is the skill's name: the one its SKILL.md gives, else its
	// folder's.
	Name string `json:"name"`
	// Path is the skill's folder inside the source, slash-separated; "."
	// is the source's root.
	Path string `json:"path"`
	// Description is the description its SKILL.md gives, or "".
	Description string `json:"description"`
	// Problem, when not empty, is why the skill cannot be installed: what
	// the checker found, or another skill of the same name.
	Problem string `json:"problem,omitempty"`
	// Spec, when not empty, is what the skill breaks of the Agent Skills
	// specification, and the only reason it cannot be installed:
	// AddRequest.Lenient installs it (rule 4).
	Spec string `json:"spec,omitempty"`
	// Within, when not empty, is the folder inside the source ("." for
	// its root) of the skill whose folder holds this one: it is a file of
	// that skill, installed alone only when AddRequest.Skills names it
	// (rule 12).
	Within string `json:"within,omitempty"`
	// Plugins are the Claude plugins of the source's manifests that the
	// skill belongs to, by name (rule 12); AddRequest.Plugins selects by
	// them.
	Plugins []string `json:"plugins,omitempty"`
}

// MissingSkillsError reports skills asked for by name (AddRequest.Skills,
// or FindRequest.Skills) that no source holds. It wraps
// [ErrInvalidSource]; Available lists every skill the sources hold.
type MissingSkillsError struct {
	// Missing are the names asked for that no source holds, sorted.
	Missing []string
	// Sources are the sources searched, as given without credentials.
	Sources []string
	// Available is every skill the sources hold.
	Available []SourceSkill
}

func (e *MissingSkillsError) Error() string {
	var missing, names []string
	for _, m := range e.Missing {
		missing = append(missing, fmt.Sprintf("%q", m))
	}
	for _, s := range e.Available {
		if !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	slices.Sort(names)
	return fmt.Sprintf("%s: %v: it holds no skill named %s; it holds %d: %s",
		strings.Join(e.Sources, " and "), ErrInvalidSource, strings.Join(missing, ", "), len(names), strings.Join(names, ", "))
}

// Unwrap returns ErrInvalidSource.
func (e *MissingSkillsError) Unwrap() error { return ErrInvalidSource }

// candidate is one skill found in a source.
type candidate struct {
	name    string // the checked name, or "" when it has none
	dir     string // its folder, read and copied from
	source  string // as recorded in the lock
	subpath string // its folder inside the source, "" for the root
	pin     string // the commit or digest a published source was read at
	problem string // why it cannot be installed, or ""
	// integrity is whether problem is an integrity failure (source.ErrIntegrity):
	// its content does not match the digest that names it.
	integrity bool
	// root, for a folder source, is the source's folder: links in the
	// skill are read as the files they point to inside it (rule 3).
	// Otherwise "": the skill's own folder.
	root string
	// noLinks is whether discovery listed every folder of it and found
	// no link: there is no link to check (rule 3).
	noLinks bool
	// mirrorOf, when not "", is the folder inside the same source of the
	// skill of the same name this one mirrors (findMirrors).
	mirrorOf string
	// trust is what was checked of its source and found (# Trust), or
	// nil when nothing was.
	trust *sourceTrust
	// got, for a URL source, is what its server said of the download
	// (rule 14).
	got validators
	// within, when not "", is the folder inside the source ("." for its
	// root) of the skill whose folder holds this one: this one is a file
	// of that skill, a skill of its own only when named (rule 12).
	within string
	// plugins are the names of the Claude plugins it belongs to (rule 12).
	plugins []string
	// spec, when not "", is what in it breaks the Agent Skills
	// specification and nothing else: a lenient request installs it
	// (rule 4).
	spec string
	// lenient is whether it is installed though it breaks the
	// specification, as the lock file records.
	lenient bool
	// digest, when not "", is the content digest of its tree as this
	// package reads it (tree), computed from the tree itself: hashed by
	// checkTree, the skill cache's digest of a tree of its that
	// skillcache.Lookup checked, or the digest the stat record holds of
	// its folder when a stat vouches for it (rule 16). Never a digest a
	// lock file names.
	digest string
	// allowed, when not nil, is what its audit allowed (Trust rule 5):
	// the rules of findings that would refuse it, with the content
	// digest audited, as the lock file records them.
	allowed *RiskAllowance
	// extracted, when not nil, is the extraction of the archive the
	// skill was read from, which audited its files as it wrote them.
	extracted *extraction
	// auditStaged is whether its audit waits for staging (auditUse):
	// its report is looked up by the digest staging computes, and the
	// staged copy audited when none is kept.
	auditStaged bool
	// requires, when reqRead, are the requirements it declares, each
	// with the skill that answers it (rule 17), as the lock file records
	// them; without reqRead (a sync) the lock file's record is kept.
	requires []lockRequirement
	reqRead  bool
	// dependency is whether an Add installs it only because skills of
	// its closure require it (rule 17): the lock file marks it so unless
	// it records the skill already, unmarked.
	dependency bool
	// requiredBy names the skills of the Add's closure that require it,
	// for its Change (Change.RequiredBy).
	requiredBy []string
	// version and rng, for a skill of a published source whose
	// reference names a version range (source.Versioned), are the tag
	// the range picked for pin and the range; "" otherwise. The lock
	// file records the version (lockEntry.Version).
	version, rng string
	// needs are the subpaths of the skills of the plugins its plugins
	// depend on in the same marketplace, needsProblem why they cannot be
	// installed with it, and foreign its plugins' dependencies on other
	// marketplaces' plugins (rule 12); pluginReqs, once an Add links
	// them (linkPlugins), the requirements they make.
	needs        []string
	needsProblem string
	foreign      []foreignDep
	pluginReqs   []pluginReq
	// pluginsRead is whether its marketplace was read again for it
	// (updatePlugins), pluginReqs then being what it requires by its
	// plugins now.
	pluginsRead bool
}

// extraction is what extracting a source's archive saw of its files as
// it wrote them: their audit (with trust), and their descriptions; and,
// when it was extracted into the skill cache's staging area, that
// repository, from which its skills' trees are published by a rename
// (keepPinned).
type extraction struct {
	scan  *audit.Scanner
	files []skillcache.File // paths relative to the extraction's folder
	repo  *skillcache.Repository
}

// filesIn returns the files of the folder sub ("" for the root) of the
// extraction, with paths relative to it.
func (x *extraction) filesIn(sub string) []skillcache.File {
	return skillcache.FilesIn(x.files, sub)
}

// tree is where the skill's files are read from. A skill without links
// is read from its own folder: nothing in it points elsewhere in the
// source, and its files are opened by their paths inside it.
func (c *candidate) tree() tree {
	if c.root == "" || c.noLinks {
		return folderTree(c.dir)
	}
	rel, err := filepath.Rel(c.root, c.dir)
	if err != nil {
		return folderTree(c.dir)
	}
	return tree{root: c.root, rel: filepath.ToSlash(rel)}
}

// label names a skill in messages: its name, else its folder's.
func (c *candidate) label() string {
	if c.name != "" {
		return c.name
	}
	if c.subpath != "" {
		return path.Base(c.subpath)
	}
	return filepath.Base(c.dir)
}

// selected reports whether only names the skill: by its name (a skill
// without one by its folder's name), or by its folder inside the source
// (a name holding a "/", or "." for the root).
func (c *candidate) selected(only []string) bool {
	return slices.Contains(only, c.label()) || slices.Contains(only, c.pathInSource())
}

// where names a skill's place in its source for messages.
func (c *candidate) where() string {
	if c.subpath == "" {
		return c.source
	}
	return c.source + " (" + c.subpath + ")"
}

// pathInSource is Path of SourceSkill and of a skipped Change.
func (c *candidate) pathInSource() string {
	if c.subpath == "" {
		return "."
	}
	return c.subpath
}

// sourceSkills is every skill discovery found in one source, each
// checked.
type sourceSkills struct {
	source  string // as given, without credentials
	pin     string // for a published source, what its reference named
	skills  []candidate
	cleanup func()          // removes what reading the source extracted
	at      map[skillAt]int // the index in skills of each name and subpath, made by find
}

// skillAt is a skill's name and subpath in its source.
type skillAt struct{ name, subpath string }

// find returns the index in r.skills of the first skill of that name at
// that subpath, or -1. It indexes r.skills on the first call, so a sync
// of n skills looks each up once, not among all n.
func (r *sourceSkills) find(name, subpath string) int {
	if r.at == nil {
		r.at = make(map[skillAt]int, len(r.skills))
		for i, c := range r.skills {
			if _, ok := r.at[skillAt{c.name, c.subpath}]; !ok {
				r.at[skillAt{c.name, c.subpath}] = i
			}
		}
	}
	if i, ok := r.at[skillAt{name, subpath}]; ok {
		return i
	}
	return -1
}

// FindRequest says which source [Installer.Find] and
// [Installer.Contents] read, and which of its skills they return.
type FindRequest struct {
	// Source is the source: any source [Installer.Add] takes.
	Source string
	// Skills selects skills by name, or by folder inside the source, as
	// AddRequest.Skills does; [MissingSkillsError] when one is not there.
	// Default (empty): every skill of the source.
	Skills []string
}

// Find returns the skills that req.Source holds (found as rule 3 says),
// read and checked as Add checks them, without installing anything: each
// as a skill.Dir of its folder (the source's own folder, or the
// materialized copy of an archive's skill in the skill cache) keyed by
// its name. Unlike Add it skips nothing: a skill it would return that
// cannot be installed, or two of one name, fail it with
// [ErrInvalidSource].
func (in *Installer) Find(ctx context.Context, req FindRequest) ([]skill.Skill, error) {
	in.stamps.forgetDevs()
	source, only := req.Source, req.Skills
	r, err := in.resolve(ctx, source, false, nil, nil)
	if err != nil {
		return nil, err
	}
	// An extracted archive or a download is only needed until its skills
	// are materialized.
	defer r.cleanup()
	use, skip := pick(r.skills, only, nil, false)
	if err := missing(only, []*sourceSkills{r}); err != nil {
		return nil, err
	}
	if err := refuseSkipped(skip, in.setting(SettingAddLenient)); err != nil {
		return nil, err
	}
	out := make([]skill.Skill, len(use))
	for i, c := range use {
		dir := c.dir
		if !in.isFolderSource(source) {
			s := skill.FS(os.DirFS(c.dir), ".")
			s.Key = c.name
			s.Metadata = map[string]string{skill.MetadataRuntimeName: c.name}
			if dir, err = in.cache.Materialize(ctx, s); err != nil {
				if ctx.Err() != nil {
					return nil, interrupted(ctx, "nothing was changed")
				}
				return nil, fmt.Errorf("%s: %w", c.where(), archiveError(err))
			}
		}
		out[i] = skill.Dir(dir)
		out[i].Key = c.name
	}
	return out, nil
}

// Contents lists the skills req.Source holds (found as rule 3 says),
// sorted by path, without installing anything; a skill that Add would
// skip is listed with its problem. With req.Skills it lists only the
// skills those select ([MissingSkillsError] when one is not there).
func (in *Installer) Contents(ctx context.Context, req FindRequest) ([]SourceSkill, error) {
	in.stamps.forgetDevs()
	r, err := in.resolve(ctx, req.Source, false, nil, nil)
	if err != nil {
		return nil, err
	}
	defer r.cleanup()
	if err := missing(req.Skills, []*sourceSkills{r}); err != nil {
		return nil, err
	}
	if len(req.Skills) > 0 {
		return slices.DeleteFunc(r.list(), func(s SourceSkill) bool {
			return !slices.Contains(req.Skills, s.Name) && !slices.Contains(req.Skills, s.Path)
		}), nil
	}
	return r.list(), nil
}

// list describes every skill of the source, each skill that shares its
// name with another marked as Add would skip it, and without the mirrors
// of another (rule 12).
func (r *sourceSkills) list() []SourceSkill {
	cands := slices.Clone(r.skills)
	var top, nested []*candidate
	for i := range cands {
		c := &cands[i]
		if c.spec != "" && c.problem == "" {
			c.problem = specProblem(c.spec)
		}
		if c.within != "" {
			nested = append(nested, c)
		} else {
			top = append(top, c)
		}
	}
	ptrs := append(markDuplicates(top), nested...)
	slices.SortStableFunc(ptrs, func(a, b *candidate) int { return strings.Compare(a.subpath, b.subpath) })
	out := make([]SourceSkill, len(ptrs))
	for i, c := range ptrs {
		out[i] = SourceSkill{Source: r.source, Name: c.label(), Path: c.pathInSource(), Problem: c.problem, Within: c.within, Plugins: c.plugins}
		if c.specOnly() {
			out[i].Spec = c.spec
		}
		if c.name != "" { // read by the checker: no link leads it out of the source
			out[i].Description = description(c.dir)
		}
	}
	return out
}

// description reads a skill's description as agents do, or "".
func description(dir string) string {
	s, err := skillmd.ParseDir(dir, skillmd.WithMode(skillmd.Lenient))
	if err != nil {
		return ""
	}
	return s.Description
}

// isFolderSource reports whether source is a local folder, or the
// SKILL.md file of one.
func (in *Installer) isFolderSource(source string) bool {
	if rs, err := in.parseRemote(source); isURL(source) || rs != nil || err != nil {
		return false
	}
	fi, err := os.Stat(source)
	return err == nil && (fi.IsDir() || fi.Mode().IsRegular() && strings.EqualFold(filepath.Base(source), "SKILL.md"))
}

// pick selects the skills named in only (when only is empty, all but
// those nested in another skill's folder, rule 12) of the plugins named
// in plugins (of any plugin or none when it is empty), and splits them
// into those to install and those to skip: a skill with a problem, one
// that breaks only the specification unless lenient (rule 4), and every
// skill whose name another selected skill has too, unless they are one
// skill (a mirror and the skill it mirrors: only the latter is used).
func pick(all []candidate, only, plugins []string, lenient bool) (use, skip []*candidate) {
	var sel []*candidate
	for i := range all {
		c := &all[i]
		switch {
		case len(plugins) > 0 && !slices.ContainsFunc(c.plugins, func(p string) bool { return slices.Contains(plugins, p) }):
		case len(only) == 0 && c.within == "", len(only) > 0 && c.selected(only):
			if c.spec != "" && c.problem == "" {
				if lenient {
					c.lenient = true
				} else {
					c.problem = specProblem(c.spec)
				}
			}
			sel = append(sel, c)
		}
	}
	// A nested skill named by a name that a skill of its own has too is
	// that one's file: the name stands for the skill of its own.
	sel = slices.DeleteFunc(sel, func(c *candidate) bool {
		return c.within != "" && !slices.Contains(only, c.pathInSource()) &&
			slices.ContainsFunc(sel, func(o *candidate) bool { return o.within == "" && o.label() == c.label() })
	})
	for _, c := range markDuplicates(sel) {
		if c.problem != "" {
			skip = append(skip, c)
		} else {
			use = append(use, c)
		}
	}
	return use, skip
}

// markDuplicates gives every usable skill whose name another usable one
// has a problem naming both places, and returns cands without the
// mirrors: when one of the usable skills of a name is the one every other
// mirrors (findMirrors), they are one skill, that one.
func markDuplicates(cands []*candidate) []*candidate {
	byName := map[string][]*candidate{}
	for _, c := range cands {
		if c.problem == "" {
			byName[c.name] = append(byName[c.name], c)
		}
	}
	drop := map[*candidate]bool{}
	for name, cs := range byName {
		if len(cs) < 2 {
			continue
		}
		if keep := mirrored(cs); keep != nil {
			for _, c := range cs {
				drop[c] = c != keep
			}
			continue
		}
		for _, c := range cs {
			var others []string
			for _, o := range cs {
				if o != c {
					others = append(others, o.where())
				}
			}
			c.problem = fmt.Sprintf("another skill is named %q too, in %s, with other content; select one by its folder, %s", name, strings.Join(others, " and "), c.pathInSource())
		}
	}
	return slices.DeleteFunc(cands, func(c *candidate) bool { return drop[c] })
}

// mirrored returns the skill of cs (skills of one name) that every other
// one mirrors, or nil when there is none.
func mirrored(cs []*candidate) *candidate {
	for _, keep := range cs {
		if keep.mirrorOf == "" && !slices.ContainsFunc(cs, func(o *candidate) bool {
			return o != keep && (o.source != keep.source || o.mirrorOf != keep.pathInSource())
		}) {
			return keep
		}
	}
	return nil
}

// findMirrors finds, among the usable skills of one source, those that
// mirror another of the same name (rule 12): a skill whose every file
// another one of that name holds too, with the same bytes and executable
// bit, as a folder that links its SKILL.md to another skill's does. Of
// skills of one name, the one that holds the files of every other is
// kept, and the others record it in mirrorOf; of several such (the same
// content in several places), the first in [preferredPlace] order. A
// skill that cannot be read is no one's mirror.
func (in *Installer) findMirrors(ctx context.Context, skills []candidate) {
	byName := map[string][]*candidate{}
	for i := range skills {
		if c := &skills[i]; c.problem == "" {
			byName[c.name] = append(byName[c.name], c)
		}
	}
	for _, cs := range byName {
		if len(cs) < 2 {
			continue
		}
		files := make([]map[string]skillcache.File, len(cs))
		for i, c := range cs {
			files[i] = in.treeFiles(ctx, c)
		}
		var covers []int // the skills that hold every other's files
		for i := range cs {
			if files[i] != nil && !slices.ContainsFunc(files, func(o map[string]skillcache.File) bool { return !holds(files[i], o) }) {
				covers = append(covers, i)
			}
		}
		if len(covers) == 0 {
			continue
		}
		keep := slices.MinFunc(covers, func(a, b int) int { return preferredPlace(cs[a].subpath, cs[b].subpath) })
		for i, c := range cs {
			if i != keep {
				c.mirrorOf = cs[keep].pathInSource()
			}
		}
	}
}

// treeFiles lists the files of a skill's tree as installing it would
// copy them, by path, or nil when it cannot be read.
func (in *Installer) treeFiles(ctx context.Context, c *candidate) map[string]skillcache.File {
	fsys, closeFS, err := c.tree().open()
	if err != nil {
		return nil
	}
	defer closeFS()
	files, err := skillcache.CheckFS(ctx, in.cache, fsys)
	if err != nil {
		return nil
	}
	out := make(map[string]skillcache.File, len(files))
	for _, f := range files {
		out[f.Path] = f
	}
	return out
}

// holds reports whether a holds every file of b, with the same bytes and
// executable bit.
func holds(a, b map[string]skillcache.File) bool {
	if b == nil {
		return false
	}
	for p, f := range b {
		if g, ok := a[p]; !ok || g.Sum != f.Sum || g.Exec != f.Exec {
			return false
		}
	}
	return true
}

// preferredPlace orders two places of one skill inside a source (rule
// 12): a folder with no element starting with "." (not a mirror under
// .gemini, .cursor, ...) first, then the one with fewer elements, then
// the shorter, then the first in byte order.
func preferredPlace(a, b string) int {
	hidden := func(p string) int {
		if slices.ContainsFunc(strings.Split(p, "/"), func(e string) bool { return strings.HasPrefix(e, ".") }) {
			return 1
		}
		return 0
	}
	return cmp.Or(
		cmp.Compare(hidden(a), hidden(b)),
		cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")),
		cmp.Compare(len(a), len(b)),
		strings.Compare(a, b))
}

// missing returns a MissingSkillsError for the names in only that no
// skill of the sources has.
func missing(only []string, sources []*sourceSkills) error {
	e := &MissingSkillsError{}
	for _, name := range only {
		held := slices.ContainsFunc(sources, func(r *sourceSkills) bool {
			return slices.ContainsFunc(r.skills, func(c candidate) bool { return c.selected([]string{name}) })
		})
		if !held && !slices.Contains(e.Missing, name) {
			e.Missing = append(e.Missing, name)
		}
	}
	if len(e.Missing) == 0 {
		return nil
	}
	slices.Sort(e.Missing)
	for _, r := range sources {
		e.Sources = append(e.Sources, r.source)
		e.Available = append(e.Available, r.list()...)
	}
	return e
}

// refuseSkipped fails with every skipped skill's problem, if any; the
// error wraps ErrSpecification too when a skill breaks only the
// specification.
func refuseSkipped(skip []*candidate, lenient string) error {
	if len(skip) == 0 {
		return nil
	}
	var lines []string
	for _, c := range skip {
		lines = append(lines, fmt.Sprintf("skill %s in %s: %s", c.label(), c.where(), c.problem))
	}
	if slices.ContainsFunc(skip, (*candidate).specOnly) {
		return fmt.Errorf("%w: %s\n(%s installs a skill that %w and nothing else)", ErrInvalidSource, strings.Join(lines, "\n"), lenient, ErrSpecification)
	}
	if slices.ContainsFunc(skip, func(c *candidate) bool { return c.integrity }) {
		return fmt.Errorf("%w: %w: %s", ErrInvalidSource, source.ErrIntegrity, strings.Join(lines, "\n"))
	}
	return fmt.Errorf("%w: %s", ErrInvalidSource, strings.Join(lines, "\n"))
}

// integrityFailures is the error of the skills of sources skipped for an
// integrity failure, or nil: Add installs the others, and fails with it.
func integrityFailures(sources []*sourceSkills) error {
	var lines []string
	for _, r := range sources {
		for _, c := range r.skills {
			if c.integrity {
				lines = append(lines, fmt.Sprintf("skill %s in %s: %s", c.label(), c.where(), c.problem))
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s\nthe other skills were installed", source.ErrIntegrity, strings.Join(lines, "\n"))
}

// specProblem is the problem of a skill that breaks only the
// specification (rule 4), which spec says how.
func specProblem(spec string) string {
	return "breaks the Agent Skills specification, though agents load it: " + spec
}

// specOnly reports whether the skill is left out only because it breaks
// the specification.
func (c *candidate) specOnly() bool {
	return c.spec != "" && c.problem == specProblem(c.spec)
}

// resolve finds every skill of a source (rule 3) and checks each,
// recording in the candidate why one cannot be installed. A recorded
// source (sync) that is gone is ErrSourceUnavailable; a source given that
// does not exist, or holds no skill, is ErrInvalidSource. An archive is
// extracted once into a temporary folder that cleanup removes. only
// names the skills an Add chooses (AddRequest.Skills), or is nil: a web
// index, whose skills are downloaded one by one, downloads only those.
func (in *Installer) resolve(ctx context.Context, source string, recorded bool, st *sourceTrust, only []string) (*sourceSkills, error) {
	r, err := in.resolveSource(ctx, source, recorded, st, only)
	if err != nil && ctx.Err() != nil {
		return nil, interrupted(ctx, "nothing was changed")
	}
	return r, err
}

func (in *Installer) resolveSource(ctx context.Context, text string, recorded bool, st *sourceTrust, only []string) (*sourceSkills, error) {
	r := &sourceSkills{source: redact.URL(text), cleanup: func() {}}
	spec, _ := source.Parse(text) // parseRemote reports its error
	rs, err := in.parseRemote(text)
	if err != nil {
		return nil, err
	}
	switch {
	case spec.Kind == source.WebIndex: // rule 15
		indexURL, _, ierr := webIndexURL(text)
		if ierr != nil {
			return nil, ierr
		}
		r.source = indexURL
		r.skills, r.cleanup, err = in.fromWebIndex(ctx, indexURL, nil, only)
	case rs != nil:
		r.pin, r.skills, r.cleanup, err = in.fromRemoteRecalled(ctx, rs, r.source, st)
		if v, ok := rs.(source.Versioned); ok && err == nil {
			for i := range r.skills {
				r.skills[i].version, r.skills[i].rng = v.Version(), v.Range()
			}
		}
		if err != nil && !recorded && spec.Bare {
			err = fmt.Errorf("%w (%s is read as a GitHub repository, as no file or folder of that name exists here)", err, text)
		}
	case spec.Kind == source.URL:
		file, remove, got, derr := in.downloadIf(ctx, text, validators{})
		if derr != nil {
			return nil, derr
		}
		r.skills, r.cleanup, err = in.fromArchive(ctx, file, r.source, "", nil, isPinnedURL(text))
		remove() // extracted: the download is no longer needed
		for i := range r.skills {
			r.skills[i].got = got
		}
	default:
		p := text
		if !filepath.IsAbs(p) {
			if p, err = filepath.Abs(text); err != nil {
				return nil, err
			}
		}
		fi, serr := os.Stat(p)
		switch {
		case serr == nil:
		case !recorded && errors.Is(serr, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: %s", ErrInvalidSource, notHere(text))
		default:
			return nil, fmt.Errorf("%w: %w", ErrSourceUnavailable, serr)
		}
		skillFile := fi.Mode().IsRegular() && strings.EqualFold(filepath.Base(p), "SKILL.md")
		if skillFile {
			p = filepath.Dir(p) // that skill's folder, and only its skill
		}
		rec := in.recordSource(p)
		switch {
		case skillFile:
			r.skills, err = in.fromFolder(ctx, p, rec)
			r.skills = slices.DeleteFunc(r.skills, func(c candidate) bool { return c.subpath != "" })
		case fi.IsDir():
			r.skills, err = in.fromFolder(ctx, p, rec)
		default:
			r.skills, r.cleanup, err = in.fromArchive(ctx, p, rec, "", nil, false)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(r.skills) == 0 {
		r.cleanup()
		return nil, fmt.Errorf("%s: %w: it holds no skill: no SKILL.md at its root, in the folders up to %d levels down, or where a plugin manifest says", r.source, ErrInvalidSource, searchDepth)
	}
	in.checkAll(ctx, r.skills, r.pin)
	in.findMirrors(ctx, r.skills)
	st.mark(r.skills)
	return r, nil
}

// checkAll checks every skill found in a source read at pin, a few at
// a time (stageWorkers: each is mostly file system calls, which
// overlap). A skill holding a link that cannot be read inside the
// source (rule 3), of a folder source or already marked by
// extractAndFind, is not read at all: its problem names the link.
func (in *Installer) checkAll(ctx context.Context, skills []candidate, pin string) {
	var g errgroup.Group
	g.SetLimit(stageWorkers)
	if in.custom {
		g.SetLimit(1) // a test's checker need not be safe for concurrent use
	}
	progress := workOf(ctx)
	progress.expect(workChecking, len(skills))
	for i := range skills {
		c := &skills[i]
		if c.pin == "" { // a web index's skills have a pin each (rule 15)
			c.pin = pin
		}
		if c.problem != "" {
			progress.did(workChecking, 0)
			continue // a link an archive's extraction dropped: not read
		}
		g.Go(func() error {
			in.checkOne(ctx, c)
			progress.did(workChecking, 0)
			return nil
		})
	}
	g.Wait()
}

// checkOne is checkAll of one skill.
func (in *Installer) checkOne(ctx context.Context, c *candidate) {
	if c.root != "" && !c.noLinks {
		if err := linkProblem(ctx, c.tree(), in.cache.Limits().MaxArchiveEntries); err != nil {
			c.problem = err.Error()
			return
		}
	}
	if name, digest, ok := in.stamps.checked(ctx, in, c); ok {
		c.name, c.digest = name, digest // checked when its folder held what it holds (rule 16)
		return
	}
	name, issues, spec, err := in.checkSkill(c.dir)
	switch {
	case err != nil:
		c.problem = err.Error()
	case len(issues) > 0:
		c.name = name
		c.problem = "not usable: " + strings.Join(append(issues, spec...), "; ")
	default:
		c.name = name
		if err := checkName(name); err != nil {
			c.problem = fmt.Sprintf("its name %q cannot be a folder name: %v", name, err)
		} else {
			c.spec = strings.Join(spec, "; ")
		}
	}
}

// recordSource is how the lock file records a local source: relative to
// the scope's root when inside it, and in a project always relative, so
// that a committed lock file works in every checkout (rule 5).
func (in *Installer) recordSource(p string) string {
	if in.scope == Project {
		if rel, err := filepath.Rel(in.Root(), p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return relTo(in.Root(), p)
}

// fromFolder finds the skills in a folder (rule 3), read through an
// os.Root so that no link leads discovery out of it.
func (in *Installer) fromFolder(ctx context.Context, dir, rec string) ([]candidate, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
	}
	defer root.Close()
	out, err := in.discoverIn(ctx, root.FS(), dir, "", rec)
	for i := range out {
		out[i].root = dir
	}
	return out, err
}

// discoverIn finds the skills in fsys, the folder dir of the source
// recorded as rec, searching from its folder top ("": its root); their
// subpaths are relative to dir.
func (in *Installer) discoverIn(ctx context.Context, fsys fs.FS, dir, top, rec string) ([]candidate, error) {
	if top != "" {
		var err error
		if fsys, err = fs.Sub(fsys, top); err != nil {
			return nil, err
		}
	}
	subs, err := discover(ctx, fsys, cmp.Or(in.maxSearch, defaultMaxSearch))
	if err != nil {
		return nil, in.searchError(rec, err)
	}
	out := make([]candidate, len(subs))
	for i, f := range subs {
		sub := path.Join(top, f.dir)
		if sub == "." {
			sub = ""
		}
		out[i] = candidate{dir: filepath.Join(dir, filepath.FromSlash(sub)), source: rec, subpath: sub, plugins: f.plugins, noLinks: f.seen,
			needsProblem: f.needsProblem, foreign: f.foreign}
		for _, n := range f.needs {
			if n = path.Join(top, n); n == "." {
				n = ""
			}
			out[i].needs = append(out[i].needs, n)
		}
		if f.within != "" {
			out[i].within = path.Join(top, f.within)
		}
	}
	return out, nil
}

func (in *Installer) searchError(rec string, err error) error {
	if errors.Is(err, errTooManyFolders) {
		return fmt.Errorf("%s: %w: %w", rec, ErrInvalidSource, err)
	}
	return fmt.Errorf("%s: %w: %w", rec, ErrSourceUnavailable, err)
}

// fromArchive finds the skills of an archive file: it extracts the whole
// archive once, under the cache's rules and limits, into
// a temporary folder that cleanup removes (for a pinned source, whose
// skills an Add keeps in the skill cache, a staging area of the cache,
// so that they are moved, not copied, into it, and of a tar, a zip or
// a tar.gz only what discovery reads; otherwise, or when the cache cannot be
// opened, a folder of the system's temporary folder), and searches it
// as a folder:
// from base, the folder a published source names, else from the root, or
// from the one top folder that holds every entry, as in repository
// snapshots. Subpaths stay relative to the archive's root. With at (a
// sync, which knows where its skills are), the skills are the folders at
// those subpaths that hold a SKILL.md, found or not.
func (in *Installer) fromArchive(ctx context.Context, file, rec, base string, at []string, pinned bool) ([]candidate, func(), error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var tmp string
	var cleanup func()
	var repo *skillcache.Repository
	if pinned {
		repo, err = skillcache.StageRepository(in.cache)
	}
	if repo != nil {
		tmp, cleanup = repo.Dir(), func() { repo.Close() }
	} else {
		if tmp, err = os.MkdirTemp("", "agentskills-archive-*"); err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(tmp) }
	}
	out, err := in.extractAndFind(ctx, f, info.Size(), tmp, repo, rec, base, at)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return out, cleanup, nil
}

// extractAndFind extracts the archive f, size bytes long, into the folder
// tmp (the folder of repo, when not nil) under the cache's rules and
// limits, and finds its skills, as fromArchive says.
//
// With trust, the extraction audits every file as it writes it (an
// audit.Scanner), so that the audit of each skill found reads no file
// again (auditSkill).
func (in *Installer) extractAndFind(ctx context.Context, f *os.File, size int64, tmp string, repo *skillcache.Repository, rec, base string, at []string) ([]candidate, error) {
	x := &extraction{repo: repo}
	var content func(string, bool, int64) io.WriteCloser
	if in.trust != nil && !in.rereadAudit {
		x.scan = audit.NewScanner()
		content = func(rel string, exec bool, size int64) io.WriteCloser {
			mode := fs.FileMode(0o444)
			if exec && runtime.GOOS != "windows" { // where the written file keeps the bit, as audit.Tree would see it
				mode = 0o555
			}
			return x.scan.File(rel, mode, size)
		}
	}
	var files []skillcache.File
	var dropped []skillcache.DroppedLink
	var err error
	if repo != nil {
		// Only what discovery and the skills read is written: the skills'
		// folders, the root's entries, the plugin manifests (rule 12). A
		// tar.gz is listed through the tar it decompresses to, which is
		// extracted in its place.
		var a io.ReaderAt = f
		if plain, n, release := skillcache.PlainTar(ctx, in.cache, f, size); plain != nil {
			defer release()
			a, size = plain, n
		}
		files, dropped, err = repo.Extract(ctx, a, size, content, inPluginFolder)
	} else {
		files, dropped, err = skillcache.ExtractRepositoryShown(ctx, in.cache, f, size, tmp, content)
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", rec, archiveError(err))
	}
	x.files = files
	if err := standInSkills(tmp, dropped); err != nil {
		return nil, err
	}
	out, err := in.findExtracted(ctx, tmp, rec, base, at)
	for i := range out {
		if le := droppedIn(out[i].subpath, dropped); le != nil {
			out[i].problem = le.Error()
		}
		out[i].extracted = x
	}
	return out, err
}

// inPluginFolder reports whether rel, a slash-separated path in a
// source, lies in a .claude-plugin folder, where discovery reads the
// plugin manifests (rule 12).
func inPluginFolder(rel string) bool {
	return slices.Contains(strings.Split(rel, "/"), ".claude-plugin")
}

// findExtracted finds the skills of the archive extracted into tmp, as
// fromArchive says.
func (in *Installer) findExtracted(ctx context.Context, tmp, rec, base string, at []string) ([]candidate, error) {
	if at != nil {
		return skillsAt(tmp, rec, at)
	}
	root, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	top := base
	if top == "" {
		top = skillcache.SoleFolder(tmp) // as package skill reads an archive of one folder
	}
	return in.discoverIn(ctx, root.FS(), tmp, top, rec)
}

// standInSkills writes an empty SKILL.md in the folder dir, an extracted
// archive, where a dropped link named SKILL.md stood, so that discovery
// finds that skill as it finds one in a folder source; droppedIn then
// gives it the link's problem, and it is never read.
func standInSkills(dir string, dropped []skillcache.DroppedLink) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, d := range dropped {
		if path.Base(d.Name) != "SKILL.md" || slices.ContainsFunc(strings.Split(d.Name, "/"), skillcache.LeftOut) {
			continue
		}
		local, err := filepath.Localize(d.Name)
		if err != nil {
			return err
		}
		if err := root.MkdirAll(filepath.Dir(local), 0o755); err != nil {
			return err
		}
		if err := root.WriteFile(local, nil, 0o444); err != nil {
			return err
		}
	}
	return nil
}

// droppedIn returns the first of the links extraction dropped that lies
// in the skill folder sub ("" for the archive root) as a *linkError
// naming it inside the skill, or nil.
func droppedIn(sub string, dropped []skillcache.DroppedLink) *linkError {
	for _, d := range dropped {
		rel, ok := d.Name, sub == ""
		if !ok {
			rel, ok = strings.CutPrefix(d.Name, sub+"/")
		}
		if !ok {
			continue
		}
		le := &linkError{name: rel, target: d.Target}
		switch d.Problem {
		case skillcache.LinkMissing:
			le.why = "which does not exist"
		case skillcache.LinkToFolder:
			le.why = "a folder; links to folders are not followed"
		case skillcache.LinkToLink:
			le.why = "another link; an archive's links are read only when they point to a file"
		default:
			le.why = "which leads out of the source"
		}
		return le
	}
	return nil
}

// skillsAt is the skills at the subpaths at of the folder dir, the
// source recorded as rec: those of its folders that hold a SKILL.md.
func skillsAt(dir, rec string, at []string) ([]candidate, error) {
	var out []candidate
	for _, sub := range at {
		local, err := filepath.Localize(sub)
		if sub == "" {
			local, err = ".", nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: subpath %q: %w: %w", rec, sub, ErrInvalidLock, err)
		}
		d := filepath.Join(dir, local)
		if fi, err := os.Stat(filepath.Join(d, "SKILL.md")); err == nil && fi.Mode().IsRegular() {
			out = append(out, candidate{dir: d, source: rec, subpath: sub})
		}
	}
	return out, nil
}

// archiveError marks an archive that breaks a rule or a limit as
// ErrInvalidSource.
func archiveError(err error) error {
	if errors.Is(err, skill.ErrArchiveFormat) || errors.Is(err, skill.ErrArchiveUnsafe) || errors.Is(err, skill.ErrArchiveLimit) {
		return fmt.Errorf("%w: %w", ErrInvalidSource, err)
	}
	return err
}
