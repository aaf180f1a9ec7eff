package sourceloc

import "strings"

// ShortPin is a pin as messages show it, as git and registries show
// them: a digest as its algorithm and 12 hex digits, another pin (a
// commit) as its first 12 characters.
func ShortPin(pin string) string {
	if _, hex, ok := strings.Cut(pin, ":"); ok && len(hex) > 12 {
		return pin[:len(pin)-len(hex)+12]
	}
	if len(pin) > 12 {
		return pin[:12]
	}
	return pin
}
