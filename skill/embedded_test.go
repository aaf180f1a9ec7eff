package skill

import (
	"embed"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

//go:embed testdata/embedded
var embeddedKit embed.FS

// TestEmbeddedRemembered checks rule 11: the tree of an embed.FS is read
// once per Cache; later materializations use what the first read found.
func TestEmbeddedRemembered(t *testing.T) {
	c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
	s := FS(embeddedKit, "testdata/embedded/kit")
	dir1, d1, err := c.MaterializeContent(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	files, ok := c.embedded[embeddedTree{fsys: embeddedKit, root: "testdata/embedded/kit"}]
	c.mu.Unlock()
	if !ok || len(files) != 1 || files[0].Path != "SKILL.md" {
		t.Fatalf("remembered %v, %v; want SKILL.md", files, ok)
	}
	dir2, d2, err := c.MaterializeContent(t.Context(), s)
	if err != nil || dir2 != dir1 || d2 != d1 {
		t.Errorf("second MaterializeContent = %s, %s, %v; want %s, %s", dir2, d2, err, dir1, d1)
	}
}
