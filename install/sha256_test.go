package install

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testarchive"
	"github.com/agentadaptor/agentadaptor/source"
)

// TestWrongSHA256NamesBothDigests checks what a URL's wrong #sha256= is
// reported as: an integrity failure naming the digest the #sha256= gives
// and the downloaded content's, never a difference from the lock file,
// whether or not the lock file records the skill; and that a real
// difference from the lock file, the content the lock file records for a
// URL whose download matches its #sha256=, still says so.
func TestWrongSHA256NamesBothDigests(t *testing.T) {
	body := testarchive.TarGzFiles(t, map[string]string{"SKILL.md": skillMD("solo")})
	sum := sha256.Sum256(body)
	right := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0f", 32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	f := newFixture(t)
	in := f.installer(t)
	ctx := t.Context()
	agents := agentsOf(t, "claude-code")

	wrongSHA := func(when string) {
		t.Helper()
		_, err := in.Add(ctx, AddRequest{Sources: []string{srv.URL + "/solo.tgz#sha256=" + wrong}, Agents: agents})
		if !errors.Is(err, source.ErrIntegrity) || errors.Is(err, ErrDrift) {
			t.Fatalf("Add(URL#sha256=WRONG) %s = %v, want source.ErrIntegrity and not ErrDrift", when, err)
		}
		for _, want := range []string{"the downloaded content's SHA-256 is " + right, "not the " + wrong + " that the source's #sha256= names"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Add(URL#sha256=WRONG) %s = %q, want it to say %q", when, err, want)
			}
		}
		if strings.Contains(err.Error(), "lock file") {
			t.Errorf("Add(URL#sha256=WRONG) %s = %q speaks of the lock file", when, err)
		}
	}
	wrongSHA("with no lock file")
	pinned := srv.URL + "/solo.tgz#sha256=" + right
	if _, err := in.Add(ctx, AddRequest{Sources: []string{pinned}, Agents: agents}); err != nil {
		t.Fatal(err)
	}
	wrongSHA("with the skill recorded from the right #sha256=")

	// The lock file records other content for the same download.
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	lock, err := readLock(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	recorded := lock.Skills["solo"].Digest
	other := strings.Repeat("ab", 32)
	b, err := os.ReadFile(lockPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lockPath, []byte(strings.ReplaceAll(string(b), recorded, other)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.canonicalOf("solo")); err != nil {
		t.Fatal(err)
	}
	_, err = in.Sync(ctx, SyncRequest{})
	if !errors.Is(err, ErrDrift) || errors.Is(err, source.ErrIntegrity) {
		t.Fatalf("Sync with other content recorded = %v, want ErrDrift", err)
	}
	for _, want := range []string{"the lock file records content " + other, "the download, which matches its #sha256=, gives " + recorded} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Sync with other content recorded = %q, want it to say %q", err, want)
		}
	}
}
