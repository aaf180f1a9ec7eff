package agentdir

import "path/filepath"

// The kinds of the tests: the shapes of the drivers' own (each driver
// declares its kind in its package), so that every rule is tried on a
// mount and on a home with sessions.
var (
	ClaudeMount = Kind{Dir: "mounts/claude", Agent: "claude-code", Name: "Claude Code skill mount", Magic: "agentadaptor claude mount v1"}
	CodexHome   = Kind{Dir: "homes/codex", Agent: "codex", Name: "managed Codex home", Magic: "agentadaptor codex home v1",
		Sessions: "sessions/*/*/*/rollout-*.jsonl"}
	GeminiHome = Kind{Dir: "homes/gemini", Agent: "gemini-cli", Name: "Gemini CLI overlay home", Magic: "agentadaptor gemini home v1",
		Sessions: filepath.ToSlash(filepath.Join(".gemini", "tmp", "*", "chats", "session-*.jsonl"))}
	QwenMount = Kind{Dir: "mounts/qwen", Agent: "qwen-code", Name: "Qwen Code skill mount", Magic: "agentadaptor qwen mount v1"}
)

// Kinds returns the kinds of the tests.
func Kinds() []Kind { return []Kind{ClaudeMount, CodexHome, GeminiHome, QwenMount} }
