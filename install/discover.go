package install

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
)

// searchDepth is how many levels below the root, a folder kept as a skill
// folder, or a folder a manifest lists, discovery searches (rule 3).
const searchDepth = 5

// maxManifestSize bounds what is read of a plugin manifest.
const maxManifestSize = 1 << 20

// defaultMaxSearch bounds the folders discovery reads in one source, so a
// source such as a home folder fails quickly instead of being read whole.
const defaultMaxSearch = 100_000

// skippedFolders are the folders discovery never enters: version control
// metadata, dependencies, caches and build output.
var skippedFolders = []string{".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".venv", "venv", "dist", "build"}

// knownFolders are where repositories keep skills, beside the folders of
// every known agent (Agent.ProjectDir); discovery searches each one as it
// searches the root.
var knownFolders = []string{"skills", "skills/.curated", "skills/.system", "skills/.experimental", ".agents/skills", ".claude/skills", ".github/skills"}

// errTooManyFolders reports a source too large to search.
var errTooManyFolders = errors.New("too many folders to search")

// discoverer finds the skill folders of one source tree.
type discoverer struct {
	ctx     context.Context
	fsys    fs.FS
	max     int            // folders it may read
	read    int            // folders read so far
	visited map[string]int // folder: the most levels below it searched
	found   map[string]bool
	// market is whether the source is a plugin marketplace (rule 12):
	// its root holds a .claude-plugin/marketplace.json that is read.
	market     bool
	marketName string // its "name"
	// plugins are the plugins the manifests list that live in the source.
	plugins []plugin
	// pluginDirs holds the folder of every plugin of plugins, and
	// members maps each folder whose skills belong to plugins (rule 12)
	// to their names: lookups that stay cheap however many a manifest
	// lists.
	pluginDirs map[string]bool
	members    map[string][]string
	// unseen holds each folder read whose whole content the search did
	// not see: it holds a link, or a folder the search did not enter
	// (what a skill leaves out, skillcache.LeftOut, aside).
	unseen map[string]bool
	// byName, depChecks and skillsByPlugin remember, per plugin name,
	// its plugin, what checkDeps found from it, and its skills' folders.
	byName         map[string]*plugin
	depChecks      map[string]depCheck
	skillsByPlugin map[string][]string
}

// plugin is a Claude plugin of the source, as its manifests list it.
type plugin struct {
	name string // "" when its entry has none
	dir  string // its folder
	// paths are the skill paths its marketplace entry and its own
	// plugin.json list, inside the source.
	paths []string
	// version is the version its marketplace entry, else its
	// plugin.json, gives; "" when neither does.
	version string
	// deps are the plugins it depends on, as its marketplace entry and
	// its plugin.json list them (rule 12); depErr, when not "", says
	// why a list of them cannot be read.
	deps   []pluginDep
	depErr string
}

// folders are where discovery searches for the plugin's skills: its
// skills folder and the paths listed.
func (p plugin) folders() []string {
	return append([]string{path.Join(p.dir, "skills")}, p.paths...)
}

// owns is where the plugin's skills are (rule 12): at or below the paths
// it lists, or, when it lists none, in its skills folder.
func (p plugin) owns() []string {
	if len(p.paths) == 0 {
		return []string{path.Join(p.dir, "skills")}
	}
	return p.paths
}

// foundSkill is one skill folder discovery found.
type foundSkill struct {
	// dir is its folder, slash-separated, relative to the source's root;
	// "" for the root itself.
	dir string
	// within, when not "", is the folder of the skill that holds this
	// one ("." for the root): this one is a file of that skill.
	within string
	// plugins are the names of the plugins it belongs to.
	plugins []string
	// needs are the folders of the skills of the plugins in the same
	// marketplace that its plugins depend on (rule 12); needsProblem,
	// when not "", is why they cannot be installed with it (a cycle, a
	// version not admitted, a dependency the marketplace does not
	// list), and foreign the dependencies on plugins of other
	// marketplaces, which are not followed.
	needs        []string
	needsProblem string
	foreign      []foreignDep
	// seen is whether the search listed every folder of it, and found
	// no link in any: its files are all regular, and no link needs
	// checking (rule 3).
	seen bool
}

// discover returns the skill folders in fsys (rule 12), sorted: the root
// when it holds a SKILL.md; every folder at most five levels below the
// root that holds one, not entering skippedFolders; the same search from
// each known folder and each folder the Claude plugin manifests list
// (.claude-plugin/marketplace.json and plugin.json); and, below every
// skill folder found, the folders that hold a SKILL.md (nested skills,
// marked with the skill that holds them). In a marketplace the root is
// searched one level down only, and a plugin folder the marketplace does
// not list is never entered, unless nothing is found at all.
func discover(ctx context.Context, fsys fs.FS, maxSearch int) ([]foundSkill, error) {
	d := &discoverer{ctx: ctx, fsys: fsys, max: maxSearch, visited: map[string]int{}, found: map[string]bool{}, unseen: map[string]bool{},
		depChecks: map[string]depCheck{}, skillsByPlugin: map[string][]string{}}
	d.readManifests()
	rootLevels := searchDepth
	if d.market {
		rootLevels = 1
	}
	if err := d.walk(".", rootLevels); err != nil {
		return nil, err
	}
	starts := slices.Clone(knownFolders)
	for _, a := range Agents() {
		starts = append(starts, a.ProjectDir)
	}
	for _, p := range d.plugins {
		starts = append(starts, p.folders()...)
	}
	for _, s := range starts {
		if !d.isFolder(s) {
			continue // absent, a file, or reached through a link
		}
		if err := d.walk(s, searchDepth); err != nil {
			return nil, err
		}
	}
	if d.market && len(d.found) == 0 {
		// A marketplace whose plugins and known folders hold no skill:
		// the whole tree is searched, as in any other source.
		if err := d.walk(".", searchDepth); err != nil {
			return nil, err
		}
	}
	// A folder is seen whole when no folder at or below it is unseen.
	unseenBelow := map[string]bool{}
	for p := range d.unseen {
		for ; !unseenBelow[p]; p = path.Dir(p) {
			unseenBelow[p] = true
			if p == "." {
				break
			}
		}
	}
	var out []foundSkill
	for dir := range d.found {
		f := foundSkill{dir: dir, seen: !unseenBelow[dir]}
		for p := dir; p != "."; {
			p = path.Dir(p)
			if d.found[p] {
				f.within = p
				break
			}
		}
		for p := dir; ; p = path.Dir(p) {
			for _, name := range d.members[p] {
				if !slices.Contains(f.plugins, name) {
					f.plugins = append(f.plugins, name)
				}
			}
			if p == "." {
				break
			}
		}
		if f.within == "" {
			d.pluginNeeds(&f)
		}
		if f.dir == "." {
			f.dir = ""
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b foundSkill) int { return strings.Compare(a.dir, b.dir) })
	return out, nil
}

// walk records dir when it holds a SKILL.md and searches the folders
// below it, levels deep, skipping skippedFolders and, in a marketplace,
// the plugin folders it does not list. Links are not followed. A skill
// folder found is searched a further searchDepth levels, for the skills
// nested in it.
func (d *discoverer) walk(dir string, levels int) error {
	if prev, ok := d.visited[dir]; ok && prev >= levels {
		return nil
	}
	d.visited[dir] = levels
	if err := d.ctx.Err(); err != nil {
		return err
	}
	entries, err := fs.ReadDir(d.fsys, dir)
	if err != nil {
		return err
	}
	if d.read++; d.read > d.max {
		return fmt.Errorf("%w: more than %d folders (name the folder that holds the skills)", errTooManyFolders, d.max)
	}
	if d.unlisted(dir) {
		d.unseen[dir] = true
		return nil
	}
	for _, e := range entries {
		if e.Name() != "SKILL.md" {
			continue
		}
		// A SKILL.md that is a link is a skill too, even when the link
		// cannot be read inside the source: checking it says why it is
		// skipped (rule 3).
		if t := e.Type(); t.IsRegular() || t&fs.ModeSymlink != 0 {
			d.found[dir] = true
			levels = max(levels, searchDepth)
			d.visited[dir] = levels
		}
	}
	delete(d.unseen, dir) // when read again, deeper
	for _, e := range entries {
		switch {
		case skillcache.LeftOut(e.Name()):
		case e.Type()&fs.ModeSymlink != 0, e.IsDir() && (levels == 0 || slices.Contains(skippedFolders, e.Name())):
			d.unseen[dir] = true
		}
	}
	if levels == 0 {
		return nil
	}
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(skippedFolders, e.Name()) {
			continue
		}
		if err := d.walk(path.Join(dir, e.Name()), levels-1); err != nil {
			return err
		}
	}
	return nil
}

// unlisted reports whether dir, in a marketplace, is a plugin's folder
// (it holds .claude-plugin/plugin.json) that the marketplace does not
// list: its skills are left out (rule 12).
func (d *discoverer) unlisted(dir string) bool {
	if !d.market || dir == "." || d.pluginDirs[dir] {
		return false
	}
	return d.exists(path.Join(dir, ".claude-plugin", "plugin.json"))
}

// isFolder reports whether dir, and every folder on the way to it, is a
// folder and not a link.
func (d *discoverer) isFolder(dir string) bool {
	for p := dir; p != "."; p = path.Dir(p) {
		fi, err := fs.Lstat(d.fsys, p)
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// marketplace is what discovery reads of .claude-plugin/marketplace.json.
type marketplace struct {
	Name     string `json:"name"`
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []struct {
		Name         string          `json:"name"`
		Source       json.RawMessage `json:"source"`
		Skills       json.RawMessage `json:"skills"`
		Version      json.RawMessage `json:"version"`
		Dependencies json.RawMessage `json:"dependencies"`
	} `json:"plugins"`
}

// pluginManifest is what discovery reads of .claude-plugin/plugin.json.
type pluginManifest struct {
	Name         string          `json:"name"`
	Skills       json.RawMessage `json:"skills"`
	Version      json.RawMessage `json:"version"`
	Dependencies json.RawMessage `json:"dependencies"`
}

// readManifests reads the Claude plugin manifests at the root: the
// root's own plugin.json, and the marketplace.json, whose plugins whose
// source is a folder of this source are recorded with the skill paths
// their entry or their own plugin.json lists. Paths that leave the
// source, plugins published elsewhere, and manifests that are not valid
// JSON are ignored.
func (d *discoverer) readManifests() {
	d.pluginDirs, d.members = map[string]bool{}, map[string][]string{}
	add := func(name, dir string, version, listed, deps json.RawMessage) {
		own, _ := d.pluginManifest(dir)
		p := plugin{name: name, dir: dir, version: cmp.Or(manifestString(version), manifestString(own.Version))}
		p.deps, p.depErr = readDeps(deps, own.Dependencies)
		for _, q := range append(pathList(listed), pathList(own.Skills)...) {
			if q, ok := within(dir, q); ok {
				p.paths = append(p.paths, q)
			}
		}
		d.plugins = append(d.plugins, p)
		d.pluginDirs[dir] = true
		if name != "" {
			for _, q := range p.owns() {
				if !slices.Contains(d.members[q], name) {
					d.members[q] = append(d.members[q], name)
				}
			}
		}
	}
	var root pluginManifest
	if d.readJSON(".claude-plugin/plugin.json", &root) {
		add(root.Name, ".", nil, nil, nil)
	} else if d.exists(".claude-plugin/plugin.json") {
		add("", ".", nil, nil, nil)
	}
	var m marketplace
	if !d.readJSON(".claude-plugin/marketplace.json", &m) {
		return
	}
	d.market = true
	d.marketName = m.Name
	for _, p := range m.Plugins {
		var src string
		if json.Unmarshal(p.Source, &src) != nil {
			continue // a plugin published elsewhere (GitHub, a URL, npm)
		}
		if !strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "../") && m.Metadata.PluginRoot != "" {
			src = path.Join(m.Metadata.PluginRoot, src)
		}
		if dir, ok := within(".", src); ok {
			add(p.Name, dir, p.Version, p.Skills, p.Dependencies)
		}
	}
}

// pluginManifest reads a plugin's own plugin.json; ok is false when it
// has none that can be read.
func (d *discoverer) pluginManifest(dir string) (m pluginManifest, ok bool) {
	ok = d.readJSON(path.Join(dir, ".claude-plugin", "plugin.json"), &m)
	return m, ok
}

func (d *discoverer) exists(name string) bool {
	fi, err := fs.Stat(d.fsys, name)
	return err == nil && fi.Mode().IsRegular()
}

// readJSON reads a manifest of at most maxManifestSize bytes into v.
func (d *discoverer) readJSON(name string, v any) bool {
	f, err := d.fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestSize+1))
	if err != nil || len(data) > maxManifestSize {
		return false
	}
	return json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), v) == nil
}

// manifestString reads a manifest's string, or "" when it holds none (a version
// written as a number is no version: it is not checked).
func manifestString(raw json.RawMessage) string {
	var s string
	json.Unmarshal(raw, &s)
	return s
}

// pathList reads a manifest's path list: one string or an array of strings.
func pathList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}

// within joins a manifest's relative path p to dir, both slash-separated
// paths relative to the source's root, and reports whether the result
// stays inside the source.
func within(dir, p string) (string, bool) {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, `\`) {
		return "", false
	}
	j := path.Join(dir, p)
	return j, fs.ValidPath(j)
}
