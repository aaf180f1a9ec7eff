package launch

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/cache"
)

// TestLinksNoMaterializer: the drivers' launch code finds the default
// cache root below package skill, so linking it does not link the
// materializer, its extractor or anything above them.
func TestLinksNoMaterializer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	const module = "github.com/agentadaptor/agentadaptor/"
	for _, refused := range []string{module + "skill", module + "internal/extract"} {
		if slices.Contains(deps, refused) {
			t.Errorf("internal/launch links %s", refused)
		}
	}
}

// TestCacheRootDefault: an unset root is the default cache's root, made
// absolute, as package skill's NewCache resolves it.
func TestCacheRootDefault(t *testing.T) {
	t.Setenv(cache.RootEnv, "relative/cache")
	want, err := filepath.Abs("relative/cache")
	if err != nil {
		t.Fatal(err)
	}
	if got := CacheRoot(""); got != want {
		t.Errorf("CacheRoot(\"\") = %q, want %q", got, want)
	}
}
