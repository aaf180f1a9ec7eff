package git_test

import (
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source/git"
)

// FuzzParse checks that Parse never panics, never accepts a password or
// a ref git would read as an option, and reads back what it prints.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"git+https://h/r.git#ref=v1&path=a/b", "git+ssh://git@h:22/r.git", "git+file:///srv/r",
		"git+http://127.0.0.1/r#ref=a%26b", "git+https://u:p@h/r", "git+https://h/r#ref=-x", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		src, err := git.Parse(text)
		if err != nil {
			return
		}
		if strings.HasPrefix(src.Ref, "-") {
			t.Errorf("Parse(%q) accepted ref %q", text, src.Ref)
		}
		back, err := git.Parse(src.String())
		if err != nil || back != src {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", src.String(), back, err, src)
		}
	})
}
