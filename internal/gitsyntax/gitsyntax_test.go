package gitsyntax

import (
	"strings"
	"testing"
)

func TestCheckRef(t *testing.T) {
	for _, ref := range []string{"main", "v1.2", "feature/x", "+main"} {
		if err := CheckRef(ref); err != nil {
			t.Errorf("CheckRef(%q) = %v", ref, err)
		}
	}
	for ref, why := range map[string]string{
		"": "is empty", "a b": "holds a space", "a..b": `holds ".."`, "-x": `starts with "-" or "/"`,
		"/x": `starts with "-" or "/"`, "x/": "ends with", "x.lock": "ends with",
	} {
		if err := CheckRef(ref); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckRef(%q) = %v, want %q", ref, err, why)
		}
	}
	if err := CheckFetchRef("+main"); err == nil || !strings.Contains(err.Error(), `starts with "-", "/" or "+"`) {
		t.Errorf("CheckFetchRef(+main) = %v, want it refused", err)
	}
	if err := CheckRef("+main"); err != nil {
		t.Errorf("CheckRef(+main) = %v: only a ref handed to git fetch may not start with +", err)
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"", "a", "a/b"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"/a", "a/../b", `a\b`, "c:d", "a\x01", "a//b"} {
		if CheckPath(p) == nil {
			t.Errorf("CheckPath(%q) accepted", p)
		}
	}
}
