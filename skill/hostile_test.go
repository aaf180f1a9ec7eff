package skill

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// The hostile archives (names that imply many folders), scaled down to a
// lowered entry limit: each is refused at the limit, before the folders
// its names imply are made, and leaves nothing in the cache. The names imply some 32 folders an
// entry, as at the default limit (10,000 entries, about 310,000 folders);
// the default's value is checked by TestDefaultLimits.
//
// Not parallel: Mallocs counts every goroutine of the test binary, so the
// measure holds only while no other test runs.
func TestMaterializeHostileArchives(t *testing.T) {
	const limit = 500
	// As many names as the limit allows entries, each 32 levels deep under
	// a top folder of its own: about 16,000 folders.
	var deep []entry
	for i := range limit {
		deep = append(deep, entry{name: fmt.Sprintf("t%05d/", i) + strings.Repeat("d/", 30) + "f"})
	}
	// 1,000-byte names 32 levels deep, in letters outside ASCII: with
	// SKILL.md, exactly the limit's files, over it by their folders.
	var long []entry
	elem := strings.Repeat("Ä", 15)
	for i := range limit - 1 {
		long = append(long, entry{name: fmt.Sprintf("%05d", i) + strings.Repeat("/"+elem, 30) + "/f"})
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{name: "deep names under folders of their own", data: tarBytes(t, true, skillFiles(deep...)), want: ErrArchiveLimit},
		{name: "long deep names", data: tarBytes(t, true, skillFiles(long...)), want: ErrArchiveLimit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, root := newTestMaterializer(t, WithMaxArchiveEntries(limit))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(tc.data)))
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Materialize(%s) = %q, %v, want %v", tc.name, dir, err, tc.want)
			}
			// Refused at the entry limit: a bounded number of allocations
			// for each entry the limit allows (20, and 2,000 that do not
			// grow with the limit: some 1,900 at 300 entries as at 3,000),
			// not one or more for each of the 16,000 folders the names
			// imply.
			if n, max := after.Mallocs-before.Mallocs, uint64(limit*20+2000); n > max {
				t.Errorf("Materialize(%s) made %d allocations to refuse, want at most %d", tc.name, n, max)
			}
			if got := published(t, root); len(got) != 0 {
				t.Errorf("Materialize(%s) published %v", tc.name, got)
			}
			if got := staging(t, root); len(got) != 0 {
				t.Errorf("Materialize(%s) left staging %v", tc.name, got)
			}
		})
	}
}
