package skill

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The archives of issue 10, at the default limits: each is refused
// quickly, and leaves nothing in the cache.
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
			start := time.Now()
			dir, err := m.Materialize(t.Context(), Archive("kit", ArchiveBytes(tc.data)))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Materialize(%s) = %q, %v, want %v", tc.name, dir, err, tc.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Materialize(%s) took %v to refuse", tc.name, d)
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
