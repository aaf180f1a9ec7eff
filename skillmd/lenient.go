package skillmd

import (
	"regexp"
	"strings"
	"sync"
)

// plainPair matches a line "key: value" whose key is a plain word. It
// is compiled when first used, not as the package is initialised: its
// Unicode classes make it the costliest expression a program linking
// the package would compile at start, and only a front matter that
// needs the lenient reading uses it.
var plainPair = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([ \t]*)([\p{L}\p{N}_][\p{L}\p{N}_.\-]*):[ \t]+(.*?)[ \t]*$`)
})

// quoteColonValues rewrites each one-line plain value that holds ": " (or
// ends with ":") as a double-quoted YAML string, so that "description:
// Use when: x" reads as the text "Use when: x". It returns the new text and
// the keys it rewrote.
func quoteColonValues(front string) (string, []string) {
	lines := strings.Split(front, "\n")
	var keys []string
	for i, line := range lines {
		m := plainPair().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent, key, value := m[1], m[2], m[3]
		if value == "" || strings.ContainsRune(`'"|>[{&*!%@#`+"`", rune(value[0])) {
			continue
		}
		if !strings.Contains(value, ": ") && !strings.HasSuffix(value, ":") {
			continue
		}
		if continued(lines[i+1:], len(indent)) {
			continue
		}
		value = strings.ReplaceAll(value, `\`, `\\`)
		value = strings.ReplaceAll(value, `"`, `\"`)
		lines[i] = indent + key + `: "` + value + `"`
		keys = append(keys, key)
	}
	return strings.Join(lines, "\n"), keys
}

// continued reports whether the next line that is not blank is indented
// deeper than indent, which makes it part of a multi-line plain value.
func continued(rest []string, indent int) bool {
	for _, l := range rest {
		t := strings.TrimLeft(l, " \t")
		if t == "" {
			continue
		}
		return len(l)-len(t) > indent
	}
	return false
}
