package search

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/internal/readfile"
	"github.com/agentadaptor/agentadaptor/internal/strictyaml"
	"github.com/agentadaptor/agentadaptor/source/oci"
	"github.com/agentadaptor/agentadaptor/source/webindex"
)

// ConfigName is the name of the user's configuration file, in the
// .agents folder of the home folder (rule 12).
const ConfigName = "agentskills.yaml"

// maxConfig is the largest configuration file read (rule 13).
const maxConfig = 64 << 10

// ErrInvalidConfig reports a configuration that breaks rule 12 or 13.
var ErrInvalidConfig = errors.New("invalid configuration")

// Config is the user's configuration of where to search (rule 12).
type Config struct {
	// Path is the file it was read from; by default (no file) "".
	Path string
	// Indexes are the web index addresses, in the file's order; by
	// default none.
	Indexes []string
	// Registries are the OCI registries (HOST) and repositories
	// (HOST/REPO), in the file's order; by default none.
	Registries []string
}

// ConfigPath is where [LoadConfig] looks: home/.agents/agentskills.yaml.
func ConfigPath(home string) string {
	return filepath.Join(home, ".agents", ConfigName)
}

// LoadConfig reads the user's configuration under home (rules 12 and
// 13); a missing file is an empty configuration.
func LoadConfig(home string) (*Config, error) {
	name := ConfigPath(home)
	data, err := readfile.Small(name, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	return ParseConfig(data, name)
}

// ParseConfig reads data, the content of the configuration file name
// (rule 13).
func ParseConfig(data []byte, name string) (*Config, error) {
	bad := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%w: %s:%d: %s", ErrInvalidConfig, name, n.Line, fmt.Sprintf(format, args...))
	}
	if len(data) > maxConfig {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", ErrInvalidConfig, name, maxConfig)
	}
	cfg := &Config{Path: name}
	root, err := strictyaml.Document(data, name, "the file")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidConfig, err)
	}
	if root == nil || root.Tag == "!!null" {
		return cfg, nil // empty, comments alone, or null: nothing configured
	}
	if root.Kind != yaml.MappingNode {
		return nil, bad(root, "the file must be a mapping of the keys indexes and registries")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Kind != yaml.ScalarNode || (k.Value != "indexes" && k.Value != "registries") {
			return nil, bad(k, "unknown key %q; the keys are indexes and registries", k.Value)
		}
		if seen[k.Value] {
			return nil, bad(k, "key %q given twice", k.Value)
		}
		seen[k.Value] = true
		if v.Kind != yaml.SequenceNode {
			return nil, bad(v, "%s must be a list", k.Value)
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || e.Value == "" {
				return nil, bad(e, "an entry of %s must be a non-empty string", k.Value)
			}
			if r := strings.IndexFunc(e.Value, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }); r >= 0 {
				return nil, bad(e, "an entry of %s holds a control or invisible character: remove it", k.Value)
			}
			var err error
			if k.Value == "indexes" {
				_, err = checkIndex(e.Value)
			} else {
				err = checkRegistry(e.Value)
			}
			if err != nil {
				return nil, bad(e, "%s entry %q: %v", k.Value, e.Value, err)
			}
			list := &cfg.Indexes
			if k.Value == "registries" {
				list = &cfg.Registries
			}
			if !slices.Contains(*list, e.Value) {
				*list = append(*list, e.Value)
			}
		}
	}
	return cfg, nil
}

// checkIndex applies rule 13 to an index address, and returns the
// index's URL.
func checkIndex(addr string) (string, error) {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return "", errors.New("it is not an absolute URL: write https://HOST")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !loopbackHost(u.Hostname())) {
		return "", errors.New("it must use https (http only on a loopback address)")
	}
	indexURL, ok, err := webindex.IndexURL(addr)
	if err != nil || !ok {
		return "", fmt.Errorf("write a site (https://HOST) or an index's address (https://HOST%s), without a user, query or fragment", webindex.Path)
	}
	return indexURL, nil
}

// loopbackHost reports whether host is localhost or a loopback address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Backends returns a [Backend] for each index and registry of c, in
// that order (rule 4); opts are package oci's, for the registries.
func (c *Config) Backends(opts ...oci.Option) ([]Backend, error) {
	var out []Backend
	for _, ix := range c.Indexes {
		b, err := Index(ix)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	for _, r := range c.Registries {
		b, err := Registry(r, opts...)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
