package adaptor_test

import (
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/codex"
)

// TestReadmeProviders checks the README's section on pointing each agent
// at a model provider: a subsection per agent, and the Codex provider
// block is the one a *codex.ProviderError prints.
func TestReadmeProviders(t *testing.T) {
	section := strings.Join(readmeSection(t, "Pointing an agent at a model provider"), "\n")
	for _, want := range []string{"### Claude Code", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"### Codex", "~/.codex/config.toml", "### Gemini CLI", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		"### Qwen Code", "OPENAI_MODEL", "--quiet"} {
		if !strings.Contains(section, want) {
			t.Errorf("the README's provider section does not mention %q", want)
		}
	}
	fix := (&codex.ProviderError{BaseURL: "https://llm.example.com/v1"}).Fix()
	if !strings.Contains(section, "```toml\n"+fix+"```") {
		t.Errorf("the README's Codex provider block is not the one codex.ProviderError prints:\n%s", fix)
	}
}
