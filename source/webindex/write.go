package webindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/skillmd"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// Dir is the folder, under the output folder given to [Write], that
// holds the index and the artifacts it names.
const Dir = ".well-known/agent-skills"

// Option configures [Write].
type Option func(*config)

type config struct {
	baseURL string
	cache   *skill.Cache
}

// WithBaseURL makes the URLs the index writes absolute: base, the http or
// https URL at which the output folder is served (https://example.com,
// https://example.github.io/team), followed by /.well-known/agent-skills/
// and the artifact's name. Default: URLs relative to the index
// (NAME/SKILL.md, NAME.tar.gz), which resolve wherever the output folder
// is served.
func WithBaseURL(base string) Option {
	return func(c *config) { c.baseURL = base }
}

// WithCache sets the skill cache whose archive rules and limits every
// archive written is held to. Default: skill.NewCache(); nil also means
// the default.
func WithCache(cache *skill.Cache) Option {
	return func(c *config) { c.cache = cache }
}

// Write writes out/.well-known/agent-skills: the index of the skills in
// the folders dirs and the artifacts it names (rule 5), and returns the
// index, its skills sorted by name. Nothing is written when a skill is
// refused, and the output folder a previous Write made is replaced whole.
func Write(ctx context.Context, out string, dirs []string, opts ...Option) (*Index, error) {
	c := config{}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.cache == nil {
		c.cache = skill.NewCache()
	}
	prefix, err := urlPrefix(c.baseURL)
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, errors.New("write index: no skill folders given")
	}
	skills, err := readSkills(dirs)
	if err != nil {
		return nil, err
	}
	final := filepath.Join(out, filepath.FromSlash(Dir))
	if err := checkPrevious(final); err != nil {
		return nil, err
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("write index: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".agent-skills-staging-*")
	if err != nil {
		return nil, fmt.Errorf("write index: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed into place
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("write index: %w", err)
	}
	ix := &Index{URL: prefix + "index.json"}
	for _, s := range skills {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := writeArtifact(ctx, c.cache, tmp, s)
		if err != nil {
			return nil, err
		}
		e.URL = prefix + e.URL
		ix.Skills = append(ix.Skills, e)
	}
	data, err := encode(ix)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "index.json"), data, 0o644); err != nil {
		return nil, fmt.Errorf("write index: %w", err)
	}
	if err := replace(final, tmp); err != nil {
		return nil, err
	}
	return ix, nil
}

// urlPrefix is what precedes an artifact's name in the index's URLs.
func urlPrefix(base string) (string, error) {
	if base == "" {
		return "", nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("write index: base URL %q must be an http or https URL without user information, query or fragment (as https://example.com)", base)
	}
	return strings.TrimSuffix(u.String(), "/") + "/" + Dir + "/", nil
}

// folder is a skill folder to publish.
type folder struct {
	dir, name, description string
	alone                  bool // its SKILL.md is all it holds
}

// readSkills validates each folder strictly and returns them sorted by
// name; two of one name are refused.
func readSkills(dirs []string) ([]folder, error) {
	var out []folder
	seen := map[string]string{}
	for _, dir := range dirs {
		if err := skillmd.Validate(dir); err != nil {
			return nil, fmt.Errorf("write index: %w (fix the skill: agentskills validate shows every problem)", err)
		}
		s, err := skillmd.ParseDir(dir)
		if err != nil {
			return nil, fmt.Errorf("write index: %w", err)
		}
		if err := CheckName(s.Name); err != nil {
			return nil, fmt.Errorf("write index: skill %s: %w; an index admits only those names", dir, err)
		}
		if other, ok := seen[s.Name]; ok {
			return nil, fmt.Errorf("write index: %s and %s are both named %q; an index names each skill once", other, dir, s.Name)
		}
		seen[s.Name] = dir
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("write index: %w", err)
		}
		alone := len(entries) == 1 && entries[0].Name() == "SKILL.md" && entries[0].Type().IsRegular()
		out = append(out, folder{dir: dir, name: s.Name, description: s.Description, alone: alone})
	}
	slices.SortFunc(out, func(a, b folder) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// writeArtifact writes the artifact of s into the staging folder tmp
// and returns its entry, with its URL relative to the index.
func writeArtifact(ctx context.Context, cache *skill.Cache, tmp string, s folder) (Skill, error) {
	e := Skill{Name: s.name, Description: s.description}
	if s.alone {
		data, err := readfile.Small(filepath.Join(s.dir, "SKILL.md"), cache.Limits().MaxArchiveSize)
		if err != nil {
			return e, fmt.Errorf("write index: skill %s: %w", s.dir, err)
		}
		if err := os.Mkdir(filepath.Join(tmp, s.name), 0o755); err != nil {
			return e, fmt.Errorf("write index: %w", err)
		}
		if err := os.WriteFile(filepath.Join(tmp, s.name, "SKILL.md"), data, 0o644); err != nil {
			return e, fmt.Errorf("write index: %w", err)
		}
		e.Type, e.URL, e.Digest = TypeSkillMD, s.name+"/SKILL.md", Digest(data)
		return e, nil
	}
	f, err := os.OpenFile(filepath.Join(tmp, s.name+".tar.gz"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return e, fmt.Errorf("write index: %w", err)
	}
	defer f.Close()
	d, err := oci.Pack(ctx, s.dir, f, oci.WithCache(cache))
	if err != nil {
		return e, fmt.Errorf("write index: skill %s: %w", s.name, err)
	}
	if err := f.Close(); err != nil {
		return e, fmt.Errorf("write index: %w", err)
	}
	e.Type, e.URL, e.Digest = TypeArchive, s.name+".tar.gz", d
	return e, nil
}

// encode is the index as JSON, indented, ending in a newline.
func encode(ix *Index) ([]byte, error) {
	doc := struct {
		Schema string  `json:"$schema"`
		Skills []Skill `json:"skills"`
	}{Schema, ix.Skills}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkPrevious refuses an output folder final that exists and holds
// anything but an index and the artifacts it names where Write puts
// them (rule 5).
func checkPrevious(final string) error {
	fi, err := os.Lstat(final)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	refuse := func(why string) error {
		return fmt.Errorf("write index: %s exists and %s; it is not replaced (move it away, or write to another folder)", final, why)
	}
	if !fi.IsDir() {
		return refuse("is not a folder")
	}
	data, err := readfile.Small(filepath.Join(final, "index.json"), MaxIndexSize)
	if err != nil {
		return refuse("holds no index.json this tool can read")
	}
	ix, err := Parse(data, "https://localhost/"+Dir+"/index.json")
	if err != nil || len(ix.Skipped) > 0 {
		return refuse("its index.json is not one this tool writes")
	}
	ours := map[string]bool{"index.json": false} // a path, and whether it is a folder
	for _, s := range ix.Skills {
		ours[s.Name] = true
		ours[s.Name+"/SKILL.md"] = false
		ours[s.Name+".tar.gz"] = false
	}
	return fs.WalkDir(os.DirFS(final), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("write index: %w", err)
		}
		if p == "." {
			return nil
		}
		if isDir, ok := ours[p]; !ok || isDir != d.IsDir() || !d.IsDir() && !d.Type().IsRegular() {
			return refuse(fmt.Sprintf("holds %s, which its index does not name", p))
		}
		return nil
	})
}

// replace puts the staged folder tmp in the place of final, renaming a
// previous one aside first and removing it after.
func replace(final, tmp string) error {
	old := ""
	if _, err := os.Lstat(final); err == nil {
		old = tmp + ".old"
		if err := os.Rename(final, old); err != nil {
			return fmt.Errorf("write index: %w", err)
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return fmt.Errorf("write index: %w", err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}
