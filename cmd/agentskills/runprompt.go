package main

import (
	"fmt"
	"io"
	"strings"
)

// maxStdinPrompt bounds a prompt read from standard input.
const maxStdinPrompt = 8 << 20

// readRunPrompt returns run's prompt: its arguments joined with spaces,
// or standard input read to its end when the one argument is "-". An
// empty prompt (white space only) is bad usage.
func readRunPrompt(stdin io.Reader, args []string) (string, error) {
	prompt := strings.Join(args, " ")
	from := "the prompt"
	if len(args) == 1 && args[0] == "-" {
		from = "the prompt read from standard input"
		data, err := io.ReadAll(io.LimitReader(stdin, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("read the prompt from standard input: %w", err)
		}
		if len(data) > maxStdinPrompt {
			return "", usageErrorf("the prompt on standard input is over %d bytes; give a shorter one", maxStdinPrompt)
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usageErrorf("%s is empty: say what the agent should do, as PROMPT or on standard input with -", from)
	}
	return prompt, nil
}
