package install

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
)

// ImportFrom names the installer whose records [Installer.Import] reads.
type ImportFrom string

// The installers [Installer.Import] reads.
const (
	ImportAuto ImportFrom = "auto" // both below
	ImportNPM  ImportFrom = "npm"  // the npm skills tool's lock files
	ImportGH   ImportFrom = "gh"   // the GitHub CLI's metadata in SKILL.md files, and its global lock entries
)

// ImportRequest says what [Installer.Import] reads.
type ImportRequest struct {
	// From is the installer to read. Default ("" or ImportAuto): both.
	From ImportFrom
	// DryRun reports the plan and changes nothing. Default: the skills
	// are added.
	DryRun bool
}

// Imported is one skill another installer recorded, and what became of
// it.
type Imported struct {
	// Skill is the skill's name, as the record names it.
	Skill string `json:"skill"`
	// Record is the file the skill was found in.
	Record string `json:"record"`
	// Origin is the source as the record gives it (its type, and its
	// source or URL).
	Origin string `json:"origin"`
	// Source is the source it is added from: once added, as the lock
	// file records it (a local folder relative to the project); "" when
	// it cannot be carried over.
	Source string `json:"source,omitempty"`
	// Pin is the commit or digest its reference resolved to.
	Pin string `json:"pin,omitempty"`
	// Agents are the agents whose folders already hold the skill, which
	// it is added for; empty: those Add chooses.
	Agents []string `json:"agents,omitempty"`
	// Reason, for a skill left out, says why.
	Reason string `json:"reason,omitempty"`
	// Backups are where the other tool's copies of the skill were moved
	// before it was added in their place (rule 5 of importing).
	Backups []string `json:"backups,omitempty"`

	ghDir string // the folder gh installed the skill in, or ""
}

// ImportReport is what [Installer.Import] did, or would do.
type ImportReport struct {
	// Imported are the skills carried over (with DryRun: those that
	// would be), sorted by name.
	Imported []Imported `json:"imported"`
	// Left are the skills that cannot be carried over, each with its
	// reason, sorted by name.
	Left []Imported `json:"left"`
	// Changes are the changes the Adds made.
	Changes []Change `json:"changes"`
}

// Limits of what Import reads (rule 1 of importing).
const (
	maxImportLock    = 16 << 20
	maxImportSkillMD = 1 << 20
	maxImportEntries = 10000
)

// Import reads the records of the npm skills tool and of the GitHub CLI
// in the scope and adds the skills they name, as the package doc's
// "Importing from other installers" says. It fails with
// [ErrNothingRecorded] when it finds no record, and with
// [ErrInvalidLock] when a lock file cannot be read; a skill that cannot
// be carried over is listed in ImportReport.Left, not an error.
func (in *Installer) Import(ctx context.Context, req ImportRequest) (*ImportReport, error) {
	from := cmp.Or(req.From, ImportAuto)
	if from != ImportAuto && from != ImportNPM && from != ImportGH {
		return nil, fmt.Errorf("%s: %w: %q; want %q, %q or %q", in.setting(SettingImportFrom), ErrInvalidSource, from, ImportAuto, ImportNPM, ImportGH)
	}
	recs, looked, err := in.importRecords(from)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: no skill is recorded by another installer here (looked in %s)", ErrNothingRecorded, strings.Join(looked, ", "))
	}
	report := &ImportReport{Imported: []Imported{}, Left: []Imported{}, Changes: []Change{}}
	var plan []Imported
	seen := map[string]string{}
	for _, r := range recs {
		item := r.Imported
		if first, ok := seen[item.Skill]; ok {
			item.Reason = "recorded again; carried over from " + first
			report.Left = append(report.Left, item)
			continue
		}
		seen[item.Skill] = item.Record
		if item.Reason == "" {
			item.Agents = in.holdingAgents(item.Skill)
			plan = append(plan, item)
		} else {
			report.Left = append(report.Left, item)
		}
	}
	if req.DryRun {
		in.planImport(ctx, plan, report)
	} else if err := in.runImport(ctx, plan, report); err != nil {
		return report, err
	}
	sortImported(report.Imported)
	sortImported(report.Left)
	return report, nil
}

func sortImported(items []Imported) {
	slices.SortStableFunc(items, func(a, b Imported) int { return strings.Compare(a.Skill, b.Skill) })
}

// importRecord is one skill a record names, mapped to a source or with
// the reason it cannot be.
type importRecord struct{ Imported }

// importRecords reads the records of from in the scope, in the order of
// rule 1 of importing, and returns them with the places looked in.
func (in *Installer) importRecords(from ImportFrom) ([]importRecord, []string, error) {
	var recs []importRecord
	var looked []string
	readLockFile := func(p string, global bool) error {
		looked = append(looked, p)
		r, err := in.readNPMLock(p, global)
		recs = append(recs, r...)
		return err
	}
	if in.scope == Project && from != ImportGH {
		if err := readLockFile(filepath.Join(in.Root(), "skills-lock.json"), false); err != nil {
			return nil, nil, err
		}
	}
	if in.scope == User {
		if err := readLockFile(in.npmGlobalLock(), true); err != nil {
			return nil, nil, err
		}
	}
	if from != ImportNPM {
		r, dirs := in.readGHMetadata()
		recs = append(recs, r...)
		looked = append(looked, "SKILL.md files in "+strings.Join(dirs, ", "))
	}
	return recs, looked, nil
}

// npmGlobalLock is where the npm tool keeps its global lock (rule 2 of
// importing).
func (in *Installer) npmGlobalLock() string {
	if x := in.env.getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "skills", ".skill-lock.json")
	}
	return filepath.Join(in.env.Home, ".agents", ".skill-lock.json")
}

// npmEntry is an entry of the npm tool's lock files (both forms).
type npmEntry struct {
	Source        string `json:"source"`
	SourceType    string `json:"sourceType"`
	SourceURL     string `json:"sourceUrl"`
	SourceBaseURL string `json:"sourceBaseUrl"`
	Ref           string `json:"ref"`
	PinnedRef     string `json:"pinnedRef"`
	SkillPath     string `json:"skillPath"`
}

// readNPMLock reads one of the npm tool's lock files; a missing one
// records nothing.
func (in *Installer) readNPMLock(p string, global bool) ([]importRecord, error) {
	data, err := readfile.Small(p, maxImportLock)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidLock, err)
	}
	var l struct {
		Version *float64            `json:"version"`
		Skills  map[string]npmEntry `json:"skills"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%w: %s: %w (it is not the npm skills tool's lock file; fix it or move it away)", ErrInvalidLock, p, err)
	}
	if l.Version == nil || l.Skills == nil {
		return nil, fmt.Errorf("%w: %s: no version or no skills; it is not the npm skills tool's lock file (move it away)", ErrInvalidLock, p)
	}
	var out []importRecord
	for _, name := range slices.Sorted(maps.Keys(l.Skills)) {
		e := l.Skills[name]
		item := Imported{Skill: name, Record: p, Origin: e.SourceType + " " + cmp.Or(e.SourceURL, e.Source)}
		item.Source, item.Reason = in.npmSource(name, e, filepath.Dir(p), global)
		out = append(out, importRecord{item})
	}
	return out, nil
}

var ownerRepo = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+$`)

// npmSource maps an npm lock entry to a source (rule 2 of importing), or
// says why it cannot.
func (in *Installer) npmSource(name string, e npmEntry, lockDir string, global bool) (string, string) {
	if why := badImportName(name); why != "" {
		return "", why
	}
	folder, why := skillFolder(e.SkillPath)
	if why != "" {
		return "", why
	}
	ref := cmp.Or(e.PinnedRef, e.Ref)
	switch e.SourceType {
	case "github":
		if u, err := url.Parse(e.SourceURL); err == nil && u.Host != "" && !strings.EqualFold(u.Host, "github.com") {
			return in.gitInProject(global)(gitSource(e.SourceURL, ref, folder))
		}
		if !ownerRepo.MatchString(e.Source) {
			return "", fmt.Sprintf("source %q is not OWNER/REPO", e.Source)
		}
		return githubSource(e.Source, folder, ref), ""
	case "gitlab", "git":
		return in.gitInProject(global)(gitSource(cmp.Or(e.SourceURL, e.Source), ref, folder))
	case "local":
		dir := cmp.Or(e.Source, e.SourceURL)
		if dir == "" {
			return "", "a local source without a folder"
		}
		written := dir
		dir = filepath.FromSlash(dir)
		if !filepath.IsAbs(dir) {
			if global {
				return "", fmt.Sprintf("local source %q is not an absolute folder", e.Source)
			}
			dir = filepath.Join(lockDir, dir)
		}
		if global {
			return dir, ""
		}
		return in.inProject("local source", written, dir)
	case "node_modules":
		if !fs.ValidPath(e.Source) || e.Source == "." || strings.Contains(e.Source, "\\") || global {
			return "", fmt.Sprintf("npm package %q cannot be found in the project's node_modules", e.Source)
		}
		return in.inProject("npm package", e.Source, filepath.Join(lockDir, "node_modules", filepath.FromSlash(e.Source), filepath.FromSlash(folder)))
	case "well-known":
		u := cmp.Or(e.SourceBaseURL, e.SourceURL)
		if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
			return "", fmt.Sprintf("web index %q is not an http(s) URL", u)
		}
		return u, ""
	}
	return "", fmt.Sprintf("source type %q is not one this tool reads (github, gitlab, git, local, node_modules, well-known); add the skill from where it is published", e.SourceType)
}

// inProject returns the folder dir, which a record of the project names
// as written, as the folder it is once every link in it is followed,
// spelled under the project's root; or, when that is not inside the
// project, or cannot be read, why it is left out (rule 2 of importing).
// A record in a project is part of what was cloned: it must not make the
// project take in the user's other folders.
func (in *Installer) inProject(what, written, dir string) (string, string) {
	root, err := filepath.EvalSymlinks(in.Root())
	if err != nil {
		return "", fmt.Sprintf("%s %q: the project folder cannot be read: %v", what, written, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Sprintf("%s %q: %v", what, written, err)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Sprintf("%s %q is outside the project (it is %s); import takes a local folder only from inside the project: add it with %s if you mean to", what, written, real, in.setting(SettingAdd))
	}
	return filepath.Join(in.Root(), rel), ""
}

// gitInProject returns what checks a git source src (or why there is
// none) that a record of the npm lock names: in the project lock, a
// file: URL's repository must be inside the project, as a local folder
// must (inProject), and the source then names the repository's real
// path. Other URLs, and the global lock's, are taken as they are.
func (in *Installer) gitInProject(global bool) func(src, why string) (string, string) {
	return func(src, why string) (string, string) {
		if why != "" || global {
			return src, why
		}
		s, err := git.Parse(src)
		if err != nil {
			return "", err.Error()
		}
		u, err := url.Parse(s.URL)
		if err != nil || u.Scheme != "file" {
			return src, ""
		}
		p := u.Path
		if len(p) >= 3 && p[0] == '/' && p[2] == ':' { // file:///C:/repo
			p = p[1:]
		}
		dir, why := in.inProject("git repository", s.URL, filepath.FromSlash(p))
		if why != "" {
			return "", why
		}
		p = filepath.ToSlash(dir)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		s.URL = (&url.URL{Scheme: "file", Path: p}).String()
		return s.String(), ""
	}
}

// badImportName says why name cannot be a skill's folder name, or "".
func badImportName(name string) string {
	if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, `/\:`) ||
		strings.ContainsFunc(name, unicode.IsControl) {
		return fmt.Sprintf("name %q cannot be a folder name", name)
	}
	return ""
}

// skillFolder returns the folder of a skillPath (skills/x/SKILL.md, or
// skills/x), "" for the root, or says why it is not a folder of the
// source.
func skillFolder(p string) (string, string) {
	if p == "" {
		return "", ""
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(p, "SKILL.md"), "/")
	if dir == "" {
		return "", ""
	}
	if !fs.ValidPath(dir) || strings.Contains(dir, "\\") {
		return "", fmt.Sprintf("skill path %q is not a folder inside its source", p)
	}
	return dir, ""
}

func githubSource(repo, folder, ref string) string {
	s := source.GitHubPrefix + repo
	if folder != "" {
		s += "/" + folder
	}
	if ref != "" {
		s += "@" + ref
	}
	return s
}

var scpLike = regexp.MustCompile(`^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+):([^/].*)$`)

// gitSource maps a clone URL to a git source (rule 2 of importing).
func gitSource(clone, ref, folder string) (string, string) {
	switch m := scpLike.FindStringSubmatch(clone); {
	case m != nil:
		clone = "ssh://" + m[1] + "@" + m[2] + "/" + m[3]
	case strings.HasPrefix(clone, "ssh://"), strings.HasPrefix(clone, "https://"), strings.HasPrefix(clone, "http://"), strings.HasPrefix(clone, "file://"):
	default:
		return "", fmt.Sprintf("clone URL %q is not https, ssh or file", clone)
	}
	s := git.Source{URL: clone, Ref: ref, Path: folder}.String()
	if _, err := git.Parse(s); err != nil {
		return "", err.Error()
	}
	return s, ""
}

// readGHMetadata reads the metadata gh writes into the SKILL.md files of
// every known agent's folders in the scope (rule 3 of importing).
func (in *Installer) readGHMetadata() ([]importRecord, []string) {
	var dirs []string
	for _, a := range Agents() {
		for _, d := range a.Reads(in.env, in.scope) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	slices.Sort(dirs)
	var out []importRecord
	for _, d := range dirs {
		entries, err := readDirBounded(d, maxImportEntries)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() { // links are another tool's (or ours): not gh's copies
				continue
			}
			p := filepath.Join(d, e.Name(), "SKILL.md")
			data, err := readfile.Small(p, maxImportSkillMD)
			if err != nil {
				continue
			}
			s, err := skillmd.Parse(data, skillmd.WithMode(skillmd.Lenient), skillmd.WithDirName(e.Name()))
			if err != nil || s.Metadata == nil {
				continue
			}
			m := s.Metadata
			if m["github-repo"] == "" && m["local-path"] == "" {
				continue
			}
			item := Imported{Skill: e.Name(), Record: p, ghDir: filepath.Join(d, e.Name())}
			item.Origin, item.Source, item.Reason = ghSource(e.Name(), m)
			if in.scope == Project && item.Reason == "" && ghLocal(m) {
				item.Source, item.Reason = in.inProject("local-path", m["local-path"], item.Source)
			}
			out = append(out, importRecord{item})
		}
	}
	return out, dirs
}

// readDirBounded reads at most max entries of the folder dir, sorted by
// name.
func readDirBounded(dir string, max int) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(max)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// ghSource maps gh's metadata to a source: the origin, the source, or
// why it cannot.
func ghSource(name string, m map[string]string) (origin, src, why string) {
	if why := badImportName(name); why != "" {
		return "gh", "", why
	}
	if lp := m["local-path"]; ghLocal(m) {
		if !filepath.IsAbs(filepath.FromSlash(lp)) {
			return "gh local " + lp, "", fmt.Sprintf("local-path %q is not an absolute folder", lp)
		}
		return "gh local " + lp, filepath.FromSlash(lp), ""
	}
	repo := m["github-repo"]
	origin = "gh github " + repo
	ref := cmp.Or(m["github-pinned"], strings.TrimPrefix(strings.TrimPrefix(m["github-ref"], "refs/heads/"), "refs/tags/"))
	folder, why := skillFolder(m["github-path"])
	if why != "" {
		return origin, "", why
	}
	host, ownerName := "github.com", repo
	if u, err := url.Parse(repo); err == nil && u.Host != "" {
		host, ownerName = u.Host, strings.Trim(u.Path, "/")
	}
	if !ownerRepo.MatchString(ownerName) {
		return origin, "", fmt.Sprintf("github-repo %q is not a repository", repo)
	}
	if !strings.EqualFold(host, "github.com") {
		src, why = gitSource("https://"+host+"/"+ownerName+".git", ref, folder)
		return origin, src, why
	}
	return origin, githubSource(ownerName, folder, ref), ""
}

// ghLocal reports whether gh's metadata m names a local folder.
func ghLocal(m map[string]string) bool {
	return m["local-path"] != "" && m["github-repo"] == ""
}

// holdingAgents returns the IDs of the agents whose folder in the scope
// (other than the canonical folder) holds an entry named name; when there
// are none, those that read such an entry in another of their folders.
func (in *Installer) holdingAgents(name string) []string {
	for _, all := range []bool{false, true} {
		var ids []string
		for _, a := range Agents() {
			dirs := []string{a.Dir(in.env, in.scope)}
			if all {
				dirs = a.Reads(in.env, in.scope)
			}
			for _, dir := range dirs {
				if _, err := os.Lstat(filepath.Join(dir, name)); err == nil && dir != in.canonicalRoot() {
					ids = append(ids, a.ID)
					break
				}
			}
		}
		if len(ids) > 0 {
			return ids
		}
	}
	return nil
}

// planImport resolves each source of plan once and reports the plan
// (rule 4 of importing).
func (in *Installer) planImport(ctx context.Context, plan []Imported, report *ImportReport) {
	type resolved struct{ pin, why string }
	done := map[string]resolved{}
	for _, item := range plan {
		r, ok := done[item.Source]
		if !ok {
			r = in.resolveImport(ctx, item.Source)
			done[item.Source] = r
		}
		item.Pin = r.pin
		if r.why == "" && item.ghDir != "" {
			// gh's copy is never what Add makes: as runImport does, it is
			// compared with the source (rule 5), changing nothing here.
			if copies := in.toolCopies(item); len(copies) > 0 {
				_, r.why = in.differsOnlyByTool(ctx, item, copies)
			}
		}
		if r.why != "" {
			item.Reason = r.why
			report.Left = append(report.Left, item)
			continue
		}
		report.Imported = append(report.Imported, item)
	}
}

// resolveImport resolves a source's reference to a pin, or checks that a
// local source exists, once the policy allows it (Trust rule 1).
func (in *Installer) resolveImport(ctx context.Context, src string) (resolved struct{ pin, why string }) {
	if _, err := in.checkSource(src, "", true, nil); err != nil { // as Add will: before any request
		resolved.why = err.Error()
		return resolved
	}
	rs, err := in.parseSource(src, false)
	switch {
	case err != nil:
		resolved.why = err.Error()
	case rs != nil:
		defer rs.Close()
		pin, err := rs.Resolve(ctx)
		if err != nil {
			resolved.why = sourceError(err).Error()
		}
		resolved.pin = pin
	case !isURL(src):
		if _, err := os.Stat(src); err != nil {
			resolved.why = fmt.Sprintf("%s: %v", src, errors.Unwrap(err))
		}
	}
	return resolved
}

// runImport adds the skills of plan, one Add per source and set of
// agents, each skill alone when that fails, and a skill whose place holds
// another tool's copy as rule 5 of importing says.
func (in *Installer) runImport(ctx context.Context, plan []Imported, report *ImportReport) error {
	type group struct {
		source string
		agents string
	}
	var order []group
	byGroup := map[group][]Imported{}
	for _, item := range plan {
		if item.ghDir != "" {
			continue // below: gh's copy is never what Add makes
		}
		g := group{item.Source, strings.Join(item.Agents, ",")}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], item)
	}
	for _, g := range order {
		items := byGroup[g]
		err := in.importAdd(ctx, items, report)
		if err == nil {
			continue
		}
		for _, item := range items {
			if ctx.Err() != nil {
				return interrupted(ctx, "the skills listed as imported were added")
			}
			if len(items) > 1 {
				err = in.importAdd(ctx, []Imported{item}, report)
			}
			if errors.Is(err, ErrConflict) {
				in.importOver(ctx, item, report, err)
			} else if err != nil {
				item.Reason = err.Error()
				report.Left = append(report.Left, item)
			}
		}
	}
	for _, item := range plan {
		if ctx.Err() != nil {
			return interrupted(ctx, "the skills listed as imported were added")
		}
		if item.ghDir != "" {
			in.importOver(ctx, item, report, nil)
		}
	}
	return nil
}

// importAdd adds items, which share a source and agents, and records
// them in report when it succeeds.
func (in *Installer) importAdd(ctx context.Context, items []Imported, report *ImportReport) error {
	agents, err := LookupAgents(items[0].Agents...)
	if err != nil || len(items[0].Agents) == 0 {
		agents = nil
	}
	req := AddRequest{Sources: []string{items[0].Source}, Agents: agents, Strict: true, Lenient: true}
	for _, item := range items {
		req.Skills = append(req.Skills, item.Skill)
	}
	changes, err := in.Add(ctx, req)
	if err != nil {
		return err
	}
	report.Changes = append(report.Changes, changes...)
	lock, _ := in.peekLock()
	for _, item := range items {
		if lock != nil && lock.Skills[item.Skill] != nil {
			item.Source, item.Pin = lock.Skills[item.Skill].Source, lock.Skills[item.Skill].Pin
			if len(item.Agents) == 0 {
				for id := range lock.Skills[item.Skill].Agents {
					item.Agents = append(item.Agents, id)
				}
				slices.Sort(item.Agents)
			}
		}
		report.Imported = append(report.Imported, item)
	}
	return nil
}
