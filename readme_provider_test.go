package adaptor_test

import (
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/codex"
)

// providersDoc is the guide whose section on pointing each agent at a
// model provider agentskills run --help names.
const providersDoc = "docs/agents.md"

// TestReadmeProviders checks the guide's section on pointing each agent
// at a model provider: a subsection per agent, and the Codex provider
// block is the one a *codex.ProviderError prints.
func TestReadmeProviders(t *testing.T) {
	section := strings.Join(docSection(t, providersDoc, "Pointing an agent at a model provider"), "\n")
	for _, want := range []string{"### Claude Code", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"### Codex", "~/.codex/config.toml", "### Gemini CLI", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		"### Qwen Code", "OPENAI_MODEL", "--quiet"} {
		if !strings.Contains(section, want) {
			t.Errorf("the provider section of %s does not mention %q", providersDoc, want)
		}
	}
	fix := (&codex.ProviderError{BaseURL: "https://llm.example.com/v1"}).Fix()
	if !strings.Contains(section, "```toml\n"+fix+"```") {
		t.Errorf("the Codex provider block of %s is not the one codex.ProviderError prints:\n%s", providersDoc, fix)
	}
}
