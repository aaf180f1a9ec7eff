package install

import (
	"errors"
	"strings"
	"testing"
)

// TestParseDownloadTakesParseSHA256 checks that a download's pin is the
// one source.Parse reads, and that a fragment it refuses (a wrong hex
// among them) is refused with install's words.
func TestParseDownloadTakesParseSHA256(t *testing.T) {
	hexSum := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, text, want string
		bad              bool
	}{
		{"none", "https://example.com/kit.tgz", "", false},
		{"pinned", "https://example.com/kit.tgz#sha256=" + hexSum, hexSum, false},
		{"upper case", "https://example.com/kit.tgz#sha256=" + strings.ToUpper(hexSum), hexSum, false},
		{"not hex", "https://example.com/kit.tgz#sha256=" + strings.Repeat("zz", 32), "", true},
		{"short", "https://example.com/kit.tgz#sha256=abc", "", true},
		{"other fragment", "https://example.com/kit.tgz#top", "", true},
		{"with a user", "https://me:secret@example.com/kit.tgz#sha256=" + strings.Repeat("g", 64), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, got, err := parseDownload(tc.text)
			if tc.bad {
				if !errors.Is(err, ErrInvalidSource) || !strings.Contains(err.Error(), "the fragment must be #sha256= and 64 hex digits") || strings.Contains(err.Error(), "secret") {
					t.Errorf("parseDownload(%q) = %v, want ErrInvalidSource about the fragment, without the password", tc.text, err)
				}
				return
			}
			if err != nil || got != tc.want || u.Fragment != "" || strings.Contains(u.String(), "#") {
				t.Errorf("parseDownload(%q) = %v, %q, %v, want no fragment, %q", tc.text, u, got, err, tc.want)
			}
		})
	}
}
