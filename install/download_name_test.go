package install

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/skill"
)

// A URL source's skill is materialized under a runtime name taken from the
// URL's last path element, not from a random download file: finding it
// again hits the cache's archive memo and yields the same tree, so the
// cache does not grow with every add or sync.
func TestURLSourceHitsTheCache(t *testing.T) {
	f := newFixture(t)
	data := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("solo")})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(data) }))
	defer srv.Close()
	in := f.installer(t)
	var dirs []string
	for range 3 {
		found, err := in.Find(t.Context(), FindRequest{Source: srv.URL + "/kits/solo.tgz"})
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 {
			t.Fatalf("Find = %d skills, want 1", len(found))
		}
		dir := found[0].Source.(skill.PathSource).Path
		if filepath.Base(dir) != "solo" {
			t.Errorf("Find(%s/kits/solo.tgz) = %s, want a folder named solo", srv.URL, dir)
		}
		dirs = append(dirs, dir)
	}
	if dirs[0] != dirs[1] || dirs[1] != dirs[2] {
		t.Errorf("Find of one URL gave folders %q, want one", dirs)
	}
	entries, err := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(f.env.Home, ".cache"))).Entries(t.Context())
	if err != nil || len(entries) != 1 {
		t.Errorf("cache holds %d trees (%v), want 1", len(entries), err)
	}
}
