package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// The limits of a plugin's dependencies (rule 12).
const (
	// maxPluginDeps is the most dependencies one manifest lists.
	maxPluginDeps = 64
	// maxPluginName is the longest plugin name a dependency names.
	maxPluginName = 128
)

// foreignDep is a dependency on a plugin of another marketplace, which
// Add does not follow (rule 12): the plugin's name, and what Add reports.
type foreignDep struct {
	Plugin string `json:"plugin"`
	Note   string `json:"note"`
}

// pluginDep is one dependency of a plugin, as its manifests list it.
type pluginDep struct {
	name   string
	rng    string // a version range, or ""
	market string // another marketplace, by name, or ""
}

// readDeps reads the dependencies of a plugin that its marketplace
// entry, then its plugin.json, list (rule 12), each once. A list that is
// not an array of plugin names and objects {"name", "version",
// "marketplace"} makes problem say why.
func readDeps(entry, own json.RawMessage) (deps []pluginDep, problem string) {
	for i, raw := range []json.RawMessage{entry, own} {
		where := [...]string{"its marketplace entry", "its plugin.json"}[i]
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Sprintf("the dependencies %s lists are not a list of plugins", where)
		}
		if len(items) > maxPluginDeps {
			return nil, fmt.Sprintf("%s lists %d dependencies, and a plugin lists at most %d", where, len(items), maxPluginDeps)
		}
		for j, item := range items {
			d, err := readDep(item)
			if err != nil {
				return nil, fmt.Sprintf("dependency %d of %s: %v", j+1, where, err)
			}
			if !slices.Contains(deps, d) {
				deps = append(deps, d)
			}
		}
	}
	return deps, ""
}

// readDep reads one dependency: a plugin name, or an object with a
// "name" and, optionally, a "version" range and a "marketplace".
func readDep(raw json.RawMessage) (pluginDep, error) {
	var d pluginDep
	if json.Unmarshal(raw, &d.name) != nil {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var o struct {
			Name        *string `json:"name"`
			Version     *string `json:"version"`
			Marketplace *string `json:"marketplace"`
		}
		if err := dec.Decode(&o); err != nil || o.Name == nil {
			return d, errors.New(`it is neither a plugin name nor an object {"name", "version", "marketplace"} of strings`)
		}
		d.name = *o.Name
		if o.Version != nil {
			if err := version.CheckRange(*o.Version); err != nil {
				return d, fmt.Errorf("plugin %.80q: %w", d.name, err)
			}
			d.rng = *o.Version
		}
		if o.Marketplace != nil {
			if err := checkPluginName(*o.Marketplace); err != nil {
				return d, fmt.Errorf("marketplace %.80q: %w", *o.Marketplace, err)
			}
			d.market = *o.Marketplace
		}
	}
	if err := checkPluginName(d.name); err != nil {
		return d, fmt.Errorf("plugin %.80q: %w", d.name, err)
	}
	return d, nil
}

// checkPluginName checks the name of a plugin, or of a marketplace, that
// a dependency names: letters, digits, "-", "_" and ".", starting with a
// letter or digit, at most maxPluginName bytes.
func checkPluginName(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty")
	case len(name) > maxPluginName:
		return fmt.Errorf("the name has %d bytes, at most %d", len(name), maxPluginName)
	case !isAlnum(rune(name[0])):
		return errors.New("the name must start with a letter or digit")
	case strings.ContainsFunc(name, func(r rune) bool { return !isAlnum(r) && r != '-' && r != '_' && r != '.' }):
		return errors.New(`the name may hold only letters, digits, "-", "_" and "."`)
	}
	return nil
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// pluginNeeds sets what the skill f needs through the dependencies of
// the plugins it belongs to (rule 12): the folders of the skills of the
// plugins of this marketplace they depend on, a problem found anywhere
// in their dependencies (named by the chain of plugins that leads to
// it), and the dependencies on other marketplaces' plugins.
func (d *discoverer) pluginNeeds(f *foundSkill) {
	for _, name := range f.plugins {
		p := d.pluginNamed(name)
		if p == nil {
			continue
		}
		for _, dep := range p.deps {
			if q := d.pluginNamed(dep.name); q != nil && d.local(dep) {
				for _, dir := range d.skillsOf(q.name) {
					if dir != f.dir && !slices.Contains(f.needs, dir) {
						f.needs = append(f.needs, dir)
					}
				}
			}
		}
		if f.needsProblem == "" {
			r, ok := d.depChecks[name]
			if !ok {
				r.problem = d.checkDeps([]string{name}, &r.foreign, map[string]bool{})
				d.depChecks[name] = r
			}
			f.needsProblem = r.problem
			for _, fd := range r.foreign {
				if !slices.Contains(f.foreign, fd) {
					f.foreign = append(f.foreign, fd)
				}
			}
		}
	}
}

// local reports whether dep names a plugin of this marketplace.
func (d *discoverer) local(dep pluginDep) bool {
	return d.market && (dep.market == "" || dep.market == d.marketName)
}

// checkDeps follows the dependencies of the last plugin of chain, depth
// first, each plugin once (done), and returns the first problem: a list
// that cannot be read, a plugin the marketplace does not list, a version
// its range does not admit, a chain too long, or a cycle. It adds the
// dependencies on other marketplaces' plugins to foreign.
func (d *discoverer) checkDeps(chain []string, foreign *[]foreignDep, done map[string]bool) string {
	name := chain[len(chain)-1]
	p := d.pluginNamed(name)
	if p == nil || done[name] {
		return ""
	}
	if p.depErr != "" {
		return fmt.Sprintf("plugin %s: %s", chainText(chain), p.depErr)
	}
	for _, dep := range p.deps {
		at := append(slices.Clone(chain), dep.name)
		if !d.local(dep) {
			where := "the marketplace " + strconv.Quote(dep.market)
			if dep.market == "" {
				where = "its marketplace (this source is no marketplace)"
			}
			note := fmt.Sprintf("plugin %s: plugin %q of %s is not installed: add that marketplace's source to install its skills", chainText(at), dep.name, where)
			if fd := (foreignDep{dep.name, note}); !slices.Contains(*foreign, fd) {
				*foreign = append(*foreign, fd)
			}
			continue
		}
		if slices.Contains(chain, dep.name) {
			return fmt.Sprintf("the plugins' dependencies make a cycle, %s", chainText(at[slices.Index(at, dep.name):]))
		}
		q := d.pluginNamed(dep.name)
		if q == nil {
			return fmt.Sprintf("plugin %s: the marketplace lists no plugin %q", chainText(at), dep.name)
		}
		if dep.rng != "" && q.version != "" {
			if r, err := version.ParseRange(dep.rng); err != nil || !r.Admits(q.version) {
				return fmt.Sprintf("plugin %s: %s requires %s %s, and the marketplace holds version %s of it (tags %s--v{version} are not looked up: the marketplace is read at one reference)",
					chainText(at), name, dep.name, dep.rng, q.version, dep.name)
			}
		}
		if len(at) > MaxRequireDepth+1 {
			return fmt.Sprintf("plugin %s: a chain of dependencies longer than %d", chainText(at), MaxRequireDepth)
		}
		if problem := d.checkDeps(at, foreign, done); problem != "" {
			return problem
		}
	}
	done[name] = true
	return ""
}

// depCheck is what checkDeps found from one plugin.
type depCheck struct {
	problem string
	foreign []foreignDep
}

// pluginNamed returns the plugin of that name (the first one), or nil.
func (d *discoverer) pluginNamed(name string) *plugin {
	if d.byName == nil {
		d.byName = map[string]*plugin{}
		for i := range d.plugins {
			if n := d.plugins[i].name; n != "" && d.byName[n] == nil {
				d.byName[n] = &d.plugins[i]
			}
		}
	}
	return d.byName[name]
}

// skillsOf returns the folders of the skills of the plugin name, not
// those nested in another skill's folder, sorted.
func (d *discoverer) skillsOf(name string) []string {
	if out, ok := d.skillsByPlugin[name]; ok {
		return out
	}
	var out []string
	for dir := range d.found {
		if d.nested(dir) {
			continue
		}
		for p := dir; ; p = path.Dir(p) {
			if slices.Contains(d.members[p], name) {
				out = append(out, dir)
				break
			}
			if p == "." {
				break
			}
		}
	}
	slices.Sort(out)
	d.skillsByPlugin[name] = out
	return out
}

// nested reports whether the skill folder dir is inside another's.
func (d *discoverer) nested(dir string) bool {
	for p := dir; p != "."; {
		p = path.Dir(p)
		if d.found[p] {
			return true
		}
	}
	return false
}

// pluginReq is a requirement of a skill that a dependency of its plugin
// makes (rule 12): the source text the lock file records, and the skill
// of the same source that answers it.
type pluginReq struct {
	text string
	c    *candidate
}

// pluginTexts returns the requirements of c's plugins, as written.
func (c *candidate) pluginTexts() []string {
	var out []string
	for _, r := range c.pluginReqs {
		out = append(out, r.text)
	}
	return out
}

// linkPlugins gives each skill of use, and each skill that follows from
// them, the requirements its plugins' dependencies make (rule 12): each
// skill of a plugin of the same marketplace that its plugins depend on,
// written as the source that Add takes it from. It fails with
// ErrRequirements when a dependency cannot be met, and returns the
// dependencies on other marketplaces' plugins, which are not followed,
// as skipped changes.
func (in *Installer) linkPlugins(sources []*sourceSkills, use []*candidate, lenient bool) ([]Change, error) {
	var notes []Change
	seen := map[*candidate]bool{}
	queue := slices.Clone(use)
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		if c.needsProblem != "" {
			return nil, fmt.Errorf("%s: %w: %s; nothing was changed (install it without what it requires with %s)",
				c.label(), ErrRequirements, c.needsProblem, in.setting(SettingAddNoRequires))
		}
		for _, f := range c.foreign {
			if !slices.ContainsFunc(notes, func(ch Change) bool { return ch.Reason == f.Note }) {
				notes = append(notes, Change{Skill: f.Plugin, Source: c.source, Action: ActionSkipped, Reason: f.Note})
			}
		}
		if len(c.needs) == 0 || c.pluginReqs != nil {
			continue
		}
		r := sourceOf(sources, c)
		if r == nil {
			continue
		}
		for _, sub := range c.needs {
			i := slices.IndexFunc(r.skills, func(o candidate) bool { return o.subpath == sub })
			if i < 0 {
				continue
			}
			dep := &r.skills[i]
			if dep.spec != "" && dep.problem == "" {
				if lenient {
					dep.lenient = true
				} else {
					dep.problem = specProblem(dep.spec)
				}
			}
			if dep.problem != "" {
				return nil, fmt.Errorf("%s -> %s: %w: %s; nothing was changed", c.label(), dep.label(), ErrInvalidSource, dep.problem)
			}
			text, err := pluginReqText(c, dep)
			if err != nil {
				return nil, fmt.Errorf("%s -> %s: %w; nothing was changed", c.label(), dep.label(), err)
			}
			c.pluginReqs = append(c.pluginReqs, pluginReq{text: text, c: dep})
			queue = append(queue, dep)
		}
	}
	return notes, nil
}

// sourceOf returns the source whose skills hold c (or a copy of it).
func sourceOf(sources []*sourceSkills, c *candidate) *sourceSkills {
	for _, r := range sources {
		if slices.ContainsFunc(r.skills, func(o candidate) bool { return o.source == c.source && o.subpath == c.subpath && o.dir == c.dir }) {
			return r
		}
	}
	return nil
}

// pluginReqText writes the source of dep, a skill of the marketplace c
// is read from, as a requirement of c (rule 12): of a folder, the path
// from c's folder to dep's; of a git repository, git+URL#ref=REF&path=PATH;
// of a GitHub repository, github:OWNER/REPO/PATH@REF: the reference as
// the marketplace's source names it.
func pluginReqText(c, dep *candidate) (string, error) {
	if c.root != "" {
		rel, err := filepath.Rel(c.dir, dep.dir)
		if err != nil {
			return "", err
		}
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		return rel, nil
	}
	spec, err := source.Parse(dep.source)
	switch {
	case err != nil:
	case spec.Kind == source.Git && strings.HasPrefix(dep.source, "git+"):
		base, frag, _ := strings.Cut(dep.source, "#")
		var keep []string
		for _, kv := range strings.Split(frag, "&") {
			if kv != "" && !strings.HasPrefix(kv, "path=") {
				keep = append(keep, kv)
			}
		}
		if dep.subpath != "" {
			keep = append(keep, "path="+dep.subpath)
		}
		if len(keep) == 0 {
			return base, nil
		}
		return base + "#" + strings.Join(keep, "&"), nil
	case spec.Kind == source.GitHub && (spec.Bare || strings.HasPrefix(dep.source, source.GitHubPrefix)):
		repo, ref, hasRef := strings.Cut(strings.TrimPrefix(dep.source, source.GitHubPrefix), "@")
		parts := strings.SplitN(repo, "/", 3)
		if len(parts) >= 2 {
			text := source.GitHubPrefix + parts[0] + "/" + parts[1]
			if dep.subpath != "" {
				text += "/" + dep.subpath
			}
			if hasRef {
				text += "@" + ref
			}
			return text, nil
		}
	}
	return "", fmt.Errorf("%w: a plugin's dependencies are followed in a marketplace read from a folder, a git+URL or a github:OWNER/REPO source, and %s is none", ErrInvalidSource, dep.source)
}

// seedPluginReqs puts the skills that answer the requirements of
// plugins (rule 12) where the closure finds the skills it read, by the
// source each requirement is read from: they are skills of a source
// read already.
func seedPluginReqs(read map[string]*candidate, use []*candidate) {
	seen := map[*candidate]bool{}
	var walk func(c *candidate)
	walk = func(c *candidate) {
		if seen[c] {
			return
		}
		seen[c] = true
		for _, r := range c.pluginReqs {
			eff := r.text
			if c.root != "" {
				eff = filepath.Join(c.dir, filepath.FromSlash(r.text))
			}
			read[eff] = r.c
			walk(r.c)
		}
	}
	for _, c := range use {
		walk(c)
	}
}

// updatePlugins reads again, for each skill an Update moves (wants)
// whose lock entry records requirements its plugins' dependencies made
// (recordedPluginReqs), its marketplace at the new pin, whole, and
// links the skill as Add does (linkPlugins): its requirements by its
// plugins are then those of the marketplace now, the skills of a
// dependency it gained among them (rule 12). A source read otherwise
// than from a folder or at a pin is not read, nor is a skill the
// marketplace no longer holds linked: the closure keeps the recorded
// requirements (keptPluginReqs). cleanup removes what reading
// extracted.
func (in *Installer) updatePlugins(ctx context.Context, lock *lockFile, wants []want, lenient bool) (cleanup func(), _ error) {
	var read []*sourceSkills
	byKey := map[string]*sourceSkills{}
	cleanup = func() {
		for _, r := range read {
			r.cleanup()
		}
	}
	for i := range wants {
		c := &wants[i].c
		if len(in.recordedPluginReqs(ctx, lock, c)) == 0 {
			continue
		}
		key := c.source + "@" + c.pin
		r := byKey[key] // skills of one marketplace and pin: read once
		switch kind := in.recordedKind(c.source); {
		case r != nil:
		case kind == kindFolder:
			st, err := in.checkNow(c.source, []string{c.name}, lock)
			if err == nil {
				r, err = in.resolve(ctx, in.sourcePath(c.source), true, st, nil)
			}
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("%s: reading its marketplace again for its plugins' dependencies: %w", c.name, err)
			}
		case kind == kindPublished:
			if c.pin == "" {
				continue
			}
			rs, err := in.parseSource(c.source, false)
			var st *sourceTrust
			if err == nil {
				st, err = in.checkSource(c.source, c.pin, false, recordedSigner(lock, []string{c.name}))
			}
			r = &sourceSkills{source: c.source, pin: c.pin, cleanup: func() {}}
			if err == nil {
				_, r.skills, r.cleanup, err = in.fromRemote(ctx, rs, c.source, c.pin, nil, st, nil)
			}
			if err != nil {
				cleanup()
				return nil, fmt.Errorf("%s: reading its marketplace again at %s for its plugins' dependencies: %w", c.name, c.pin, err)
			}
			in.checkAll(ctx, r.skills, c.pin)
			st.mark(r.skills)
		default:
			continue
		}
		if byKey[key] == nil {
			byKey[key] = r
			read = append(read, r)
		}
		j := slices.IndexFunc(r.skills, func(o candidate) bool { return o.subpath == c.subpath })
		if j < 0 {
			continue // not found whole: the recorded requirements stay
		}
		m := &r.skills[j]
		if _, err := in.linkPlugins([]*sourceSkills{r}, []*candidate{m}, lenient); err != nil {
			cleanup()
			return nil, err
		}
		c.pluginReqs, c.pluginsRead = m.pluginReqs, true
	}
	return cleanup, nil
}
