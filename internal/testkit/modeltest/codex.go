package modeltest

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// CodexConfig returns a Codex config.toml that sends every model request
// to s and keeps Codex off the network:
//
//	model_provider = "fake"
//	analytics.enabled = false
//
//	[features]
//	plugins = false
//
//	[model_providers.fake]
//	name = "fake"
//	base_url = "<s.URL>/v1"
//	env_key = "OPENAI_API_KEY"
//	wire_api = "responses"
//	request_max_retries = 0
//	stream_max_retries = 0
//
// analytics.enabled = false stops the lookups of ab.chatgpt.com, and
// plugins = false the git ls-remote of the curated plugins repository on
// github.com and the calls to chatgpt.com. With no retries an
// [ResponsesAPIError] ends the turn at once (see the package doc). The model
// is Codex's default (gpt-6.1-sol in 0.169.0); pass -m or -c model=... to
// change it.
func (s *ResponsesServer) CodexConfig() string {
	return fmt.Sprintf(`model_provider = "fake"
analytics.enabled = false

[features]
plugins = false

[model_providers.fake]
name = "fake"
base_url = %q
env_key = "OPENAI_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, s.URL+"/v1")
}

// WriteCodexConfig writes [ResponsesServer.CodexConfig] to
// dir/config.toml, creating dir if needed and replacing a config.toml
// there, and returns the file's path. It fails the test on error. Use it
// for a Codex home the test builds itself, such as the user's home that a
// driver reads its settings from.
func (s *ResponsesServer) WriteCodexConfig(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(name, []byte(s.CodexConfig()), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// CodexEnv returns an environment for running the Codex CLI against s,
// hermetic and quiet. It holds only:
//   - PATH, from the test's environment;
//   - HOME, a fresh folder under t.TempDir(), returned as home, so that a
//     test can put skills in home/.agents/skills or look at what the CLI
//     wrote;
//   - CODEX_HOME, another fresh folder, returned as codexHome, holding
//     [ResponsesServer.CodexConfig] as config.toml;
//   - TMPDIR, a third fresh folder: Codex refuses to make its helper
//     links in CODEX_HOME/tmp when CODEX_HOME is under the temporary
//     folder, and says so on stderr;
//   - OPENAI_API_KEY, a dummy key, which the config's provider sends as
//     "Authorization: Bearer".
//
// Nothing else is passed on. Append to env to add or override a variable:
// with os/exec the last value wins.
func (s *ResponsesServer) CodexEnv(t testing.TB) (env []string, home, codexHome string) {
	t.Helper()
	home, codexHome = t.TempDir(), t.TempDir()
	s.WriteCodexConfig(t, codexHome)
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"CODEX_HOME=" + codexHome,
		"TMPDIR=" + t.TempDir(),
		"OPENAI_API_KEY=sk-modeltest",
	}, home, codexHome
}

// ListedSkill is one skill of the listing Codex sends the model.
type ListedSkill struct {
	// Name and Description are as listed.
	Name        string
	Description string
	// File is the listed location, as written: a root alias and a path
	// under it in slashes, "r0/NAME/SKILL.md".
	File string
	// Path is File with its alias replaced by the root's folder from the
	// roots table: the SKILL.md the model is told to read.
	Path string
}

// ErrNoSkillListing reports a request without a <skills_instructions>
// block in its developer messages.
var ErrNoSkillListing = errors.New("no skill listing in the request")

// Skills returns the skills listed in the <skills_instructions> block of
// the request's developer messages, in the order listed, each with its
// path expanded with the block's roots table (the format is in the
// package doc). It fails with [ErrNoSkillListing] when there is no block,
// and with another error when a line does not parse or names an unknown
// root.
func (r *ResponsesRequest) Skills() ([]ListedSkill, error) {
	dev := r.Developer()
	start := strings.Index(dev, "<skills_instructions>")
	if start < 0 {
		return nil, ErrNoSkillListing
	}
	block, _, ok := strings.Cut(dev[start:], "</skills_instructions>")
	if !ok {
		return nil, errors.New("skill listing: no </skills_instructions>")
	}
	roots := map[string]string{}
	var skills []ListedSkill
	section := ""
	for line := range strings.Lines(block) {
		line = strings.TrimRight(line, "\n")
		if h, ok := strings.CutPrefix(line, "### "); ok {
			section = h
			continue
		}
		item, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		switch section {
		case "Skill roots":
			// - `r0` = `/path`
			alias, dir, ok := strings.Cut(item, " = ")
			if !ok || !isQuoted(alias) || !isQuoted(dir) {
				return nil, fmt.Errorf("skill listing: root line %q", line)
			}
			roots[unquote(alias)] = unquote(dir)
		case "Available skills":
			// - NAME: DESCRIPTION (file: rN/PATH/SKILL.md)
			rest, file, ok := cutLast(item, " (file: ")
			if !ok || !strings.HasSuffix(file, ")") {
				return nil, fmt.Errorf("skill listing: skill line %q", line)
			}
			file = strings.TrimSuffix(file, ")")
			name, desc, _ := strings.Cut(rest, ": ")
			name = strings.TrimSuffix(name, ":") // an empty description
			alias, sub, _ := strings.Cut(file, "/")
			dir, ok := roots[alias]
			if !ok {
				return nil, fmt.Errorf("skill listing: skill %q: unknown root %q", name, alias)
			}
			skills = append(skills, ListedSkill{
				Name: name, Description: desc, File: file,
				Path: filepath.Join(dir, filepath.FromSlash(path.Clean(sub))),
			})
		}
	}
	return skills, nil
}

func isQuoted(s string) bool { return len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' }

func unquote(s string) string { return s[1 : len(s)-1] }

// cutLast is [strings.Cut] at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
