package skillcache_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/skillcache"
	"github.com/agentadaptor/agentadaptor/skill"
)

// TestRecord checks that a record kept with SetRecord is what Record
// returns, under its key only; that a key that is not a hex SHA-256
// keeps nothing; and that Record on a root that does not exist finds
// nothing and creates no folder.
func TestRecord(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	c := skill.NewCache(skill.WithSkillCacheRoot(root))
	key, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	if got := skillcache.Record(c, key); got != nil {
		t.Errorf("Record(missing root) = %q, want nothing", got)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Errorf("Record(missing root) made %s: %v", root, err)
	}
	if err := skillcache.SetRecord(c, key, []byte("a record\n")); err != nil {
		t.Fatalf("SetRecord() = %v", err)
	}
	if got := skillcache.Record(c, key); !bytes.Equal(got, []byte("a record\n")) {
		t.Errorf("Record(key) = %q, want the record kept", got)
	}
	if got := skillcache.Record(c, other); got != nil {
		t.Errorf("Record(another key) = %q, want nothing", got)
	}
	if err := skillcache.SetRecord(c, "../x", []byte("out")); err != nil || skillcache.Record(c, "../x") != nil {
		t.Errorf("SetRecord(../x) kept a record (%v)", err)
	}
}
