package skill

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// The archives of issue 10, at the default limits: each is refused at the
// entry limit, before the folders its names imply are made, and leaves
// nothing in the cache.
//
// Not parallel: Mallocs counts every goroutine of the test binary, so the
// measure holds only while no other test runs.
func TestMaterializeHostileArchives(t *testing.T) {
	// 10,000 names, each 32 levels deep under a top folder of its own: a
	// 47 KB tar.gz that would make about 310,000 folders.
	var deep []entry
	for i := range 10000 {
		deep = append(deep, entry{name: fmt.Sprintf("t%05d/", i) + strings.Repeat("d/", 30) + "f"})
	}
	// 1,000-byte names 32 levels deep, in letters outside ASCII.
	var long []entry
	elem := strings.Repeat("Ä", 15)
	for i := range 9999 {
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
			m, root := newTestMaterializer(t)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(tc.data)))
			runtime.ReadMemStats(&after)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Materialize(%s) = %q, %v, want %v", tc.name, dir, err, tc.want)
			}
			// Refused at the entry limit: a bounded number of allocations
			// for each entry the limit allows, not one or more for each of
			// the 310,000 folders the names imply.
			if n, max := after.Mallocs-before.Mallocs, uint64(NewCache().Limits().MaxArchiveEntries)*20; n > max {
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
