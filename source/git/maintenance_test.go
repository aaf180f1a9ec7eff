package git_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source/git"
)

// TestFetchRunsNoMaintenance checks rule 6's maintenance.auto=false: a
// Fetch starts git's helpers (upload-pack, index-pack) but no git
// maintenance run, as git's trace of every process it starts shows.
func TestFetchRunsNoMaintenance(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	trace := filepath.Join(t.TempDir(), "trace2.json")
	t.Setenv("GIT_TRACE2_EVENT", trace)
	src, err := git.Parse(r.fileURL() + "#ref=main")
	if err != nil {
		t.Fatal(err)
	}
	_, rc, err := newClient(t).Fetch(t.Context(), src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, `"event":"child_start"`) {
			started = append(started, line)
		}
	}
	if len(started) == 0 {
		t.Fatalf("git's trace shows no process started: %s", b)
	}
	for _, line := range started {
		if strings.Contains(line, "maintenance") {
			t.Errorf("the fetch started git maintenance: %s", line)
		}
	}
}
