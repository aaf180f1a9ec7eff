package agentdir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// Rule 7 for a Gemini CLI overlay home: its own sessions
// (.gemini/tmp/SLUG/chats/session-*.jsonl) are counted; those behind a
// .gemini/tmp that links to the user's are the user's, not the home's.
func TestListGeminiSessions(t *testing.T) {
	session := func(tmp, name string) {
		p := filepath.Join(tmp, "proj", "chats", "session-2026-12-01T10-00-"+name+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name   string
		linked bool
		want   int
	}{{"own tmp", false, 2}, {"the user's tmp", true, 0}} {
		t.Run(tt.name, func(t *testing.T) {
			root := cachetest.Root(t)
			home := mkKey(t, root, GeminiHome, key, time.Now().Add(-time.Hour))
			tmp := filepath.Join(home, ".gemini", "tmp")
			if tt.linked {
				user := filepath.Join(t.TempDir(), "tmp")
				os.MkdirAll(filepath.Dir(tmp), 0o700)
				if err := os.Symlink(user, tmp); err != nil {
					t.Fatal(err)
				}
				tmp = user
			}
			session(tmp, "aaaaaaaa")
			session(tmp, "bbbbbbbb")
			list, err := List(root)
			if err != nil || len(list) != 1 {
				t.Fatalf("List = %+v, %v; want one home", list, err)
			}
			if f := list[0]; f.Agent != GeminiHome.Agent || f.Sessions != tt.want {
				t.Errorf("List = %+v, want a Gemini CLI home with %d sessions", f, tt.want)
			}
		})
	}
}
