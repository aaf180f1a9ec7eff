package search_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/search"
)

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		indexes    []string
		registries []string
		err        string // "" when it must parse
	}{
		{"both", "indexes:\n  - https://skills.example.com\nregistries:\n  - ghcr.io/acme/skills\n  - localhost:5000\n",
			[]string{"https://skills.example.com"}, []string{"ghcr.io/acme/skills", "localhost:5000"}, ""},
		{"empty file", "", nil, nil, ""},
		{"empty mapping", "{}\n", nil, nil, ""},
		{"only a comment", "# nothing yet\n", nil, nil, ""},
		{"null", "~\n", nil, nil, ""},
		{"repeated entry kept once", "registries: [ghcr.io, ghcr.io]\n", nil, []string{"ghcr.io"}, ""},
		{"unknown key", "indexes: []\nindex: [https://x.example]\n", nil, nil, `cfg.yaml:2: unknown key "index"`},
		{"key twice", "indexes: []\nindexes: []\n", nil, nil, "cfg.yaml:2: key \"indexes\" given twice"},
		{"not a list", "indexes: https://x.example\n", nil, nil, "cfg.yaml:1: indexes must be a list"},
		{"not a string", "registries: [5000]\n", nil, nil, "cfg.yaml:1: an entry of registries must be a non-empty string"},
		{"a mapping entry", "registries:\n  - host: ghcr.io\n", nil, nil, "cfg.yaml:2: an entry of registries must be"},
		{"null entry", "registries:\n  -\n", nil, nil, "cfg.yaml:2: an entry of registries must be"},
		{"alias", "indexes: &a [https://x.example]\nregistries: *a\n", nil, nil, "anchors and aliases"},
		{"two documents", "indexes: []\n---\nregistries: []\n", nil, nil, "more than one YAML document"},
		{"not a mapping", "- https://x.example\n", nil, nil, "cfg.yaml:1: the file must be a mapping"},
		{"syntax", "indexes: [\n", nil, nil, "cfg.yaml:"},
		{"control character", "registries: [\"ghcr.io\\u202e\"]\n", nil, nil, "control or invisible character"},
		{"plain http index", "indexes: [http://x.example]\n", nil, nil, "https"},
		{"index with a page", "indexes: [https://x.example/docs]\n", nil, nil, "write a site"},
		{"index with a user", "indexes: [\"https://me:pw@x.example\"]\n", nil, nil, "without a user"},
		{"registry with a tag", "registries: [ghcr.io/acme:1]\n", nil, nil, "HOST/REPO"},
		{"registry traversal", "registries: [ghcr.io/../x]\n", nil, nil, "HOST/REPO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := search.ParseConfig([]byte(tc.yaml), "cfg.yaml")
			if tc.err != "" {
				if !errors.Is(err, search.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseConfig(%q) = %v, want %v saying %q", tc.yaml, err, search.ErrInvalidConfig, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseConfig(%q) = %v", tc.yaml, err)
			}
			if !slices.Equal(c.Indexes, tc.indexes) || !slices.Equal(c.Registries, tc.registries) {
				t.Errorf("ParseConfig(%q) = %q, %q; want %q, %q", tc.yaml, c.Indexes, c.Registries, tc.indexes, tc.registries)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		c, err := search.LoadConfig(t.TempDir())
		if err != nil || len(c.Indexes)+len(c.Registries) != 0 || c.Path != "" {
			t.Errorf("LoadConfig(no file) = %+v, %v; want empty", c, err)
		}
	})
	for _, tc := range []struct {
		name  string
		write func(p string) error
		says  string
	}{
		{"too large", func(p string) error {
			return os.WriteFile(p, []byte("indexes: []\n"+strings.Repeat("# x\n", 20<<10)), 0o644)
		}, "larger than 65536 bytes"},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := search.ConfigPath(home)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tc.write(p); err != nil {
				t.Fatal(err)
			}
			if _, err := search.LoadConfig(home); !errors.Is(err, search.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("LoadConfig = %v, want %v saying %q", err, search.ErrInvalidConfig, tc.says)
			}
		})
	}
	t.Run("read", func(t *testing.T) {
		home := t.TempDir()
		p := search.ConfigPath(home)
		if p != filepath.Join(home, ".agents", "agentskills.yaml") {
			t.Errorf("ConfigPath = %s", p)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("registries: [ghcr.io/acme]\n"), 0o644)
		c, err := search.LoadConfig(home)
		if err != nil || c.Path != p || !slices.Equal(c.Registries, []string{"ghcr.io/acme"}) {
			t.Errorf("LoadConfig = %+v, %v", c, err)
		}
	})
}
