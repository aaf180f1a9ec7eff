package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
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
}

// discover returns the skill folders in fsys (rule 3), as slash-separated
// paths relative to its root ("" for the root itself), sorted: the root
// when it holds a SKILL.md; every folder at most five levels below the
// root that holds one, not entering skippedFolders; the same search from
// each known folder and each folder the Claude plugin manifests list
// (.claude-plugin/marketplace.json and plugin.json); and, below every
// skill folder found, the folders that hold a SKILL.md (nested skills).
func discover(ctx context.Context, fsys fs.FS, maxSearch int) ([]string, error) {
	d := &discoverer{ctx: ctx, fsys: fsys, max: maxSearch, visited: map[string]int{}, found: map[string]bool{}}
	starts := []string{"."}
	starts = append(starts, knownFolders...)
	for _, a := range Agents() {
		starts = append(starts, a.ProjectDir)
	}
	starts = append(starts, d.manifestFolders()...)
	for _, s := range starts {
		if s != "." && !d.isFolder(s) {
			continue // absent, a file, or reached through a link
		}
		if err := d.walk(s, searchDepth); err != nil {
			return nil, err
		}
	}
	var out []string
	for dir := range d.found {
		if dir == "." {
			dir = ""
		}
		out = append(out, dir)
	}
	slices.Sort(out)
	return out, nil
}

// walk records dir when it holds a SKILL.md and searches the folders
// below it, levels deep, skipping skippedFolders. Links are not followed.
// A skill folder found is searched a further searchDepth levels, for the
// skills nested in it.
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
	for _, e := range entries {
		if e.Name() != "SKILL.md" {
			continue
		}
		// A SKILL.md that is a link is a skill too, even when the link
		// cannot be read inside the source: checking it says why it is
		// skipped (rule 3).
		fi, err := fs.Stat(d.fsys, path.Join(dir, e.Name()))
		if err == nil && fi.Mode().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
			d.found[dir] = true
			levels = max(levels, searchDepth)
			d.visited[dir] = levels
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
	Metadata struct {
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
	Plugins []struct {
		Source json.RawMessage `json:"source"`
		Skills json.RawMessage `json:"skills"`
	} `json:"plugins"`
}

// pluginManifest is what discovery reads of .claude-plugin/plugin.json.
type pluginManifest struct {
	Skills json.RawMessage `json:"skills"`
}

// manifestFolders returns the folders the Claude plugin manifests list:
// for the root's plugin.json and for every plugin of the marketplace.json
// whose source is a folder of this source, the plugin's skills folder and
// the skill paths its entry or its own plugin.json lists. Paths that leave
// the source, plugins published elsewhere, and manifests that are not
// valid JSON are ignored.
func (d *discoverer) manifestFolders() []string {
	var out []string
	plugin := func(dir string, listed json.RawMessage) {
		out = append(out, path.Join(dir, "skills"))
		for _, p := range append(pathList(listed), d.pluginSkills(dir)...) {
			if p, ok := within(dir, p); ok {
				out = append(out, p)
			}
		}
	}
	if d.exists(".claude-plugin/plugin.json") {
		plugin(".", nil)
	}
	var m marketplace
	if !d.readJSON(".claude-plugin/marketplace.json", &m) {
		return out
	}
	for _, p := range m.Plugins {
		var src string
		if json.Unmarshal(p.Source, &src) != nil {
			continue // a plugin published elsewhere (GitHub, a URL, npm)
		}
		if !strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "../") && m.Metadata.PluginRoot != "" {
			src = path.Join(m.Metadata.PluginRoot, src)
		}
		if dir, ok := within(".", src); ok {
			plugin(dir, p.Skills)
		}
	}
	return out
}

// pluginSkills returns the skill paths a plugin's own plugin.json lists.
func (d *discoverer) pluginSkills(dir string) []string {
	var m pluginManifest
	if !d.readJSON(path.Join(dir, ".claude-plugin", "plugin.json"), &m) {
		return nil
	}
	return pathList(m.Skills)
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
