package agents

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

func TestMounted(t *testing.T) {
	aa, bb := filepath.FromSlash("/cache/aa/"), filepath.FromSlash("/cache/bb")
	mount := filepath.FromSlash("/mount/skills")
	rs := driver.ResolvedSkills{Entries: []driver.ResolvedSkill{
		{RuntimeName: "a", Path: aa},
		{RuntimeName: "b-2", Path: bb},
	}}
	for _, tt := range []struct {
		dir  string
		want []Skill
	}{
		{"", []Skill{{Dir: filepath.Clean(aa), Path: aa}, {Dir: bb, Path: bb}}},
		{mount, []Skill{{Dir: filepath.Join(mount, "a"), Path: aa}, {Dir: filepath.Join(mount, "b-2"), Path: bb}}},
	} {
		if got := Mounted(rs, tt.dir); !slices.Equal(got, tt.want) {
			t.Errorf("Mounted(rs, %q) = %v, want %v", tt.dir, got, tt.want)
		}
	}
}
