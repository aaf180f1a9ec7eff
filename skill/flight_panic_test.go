package skill

import (
	"crypto/sha256"
	"io"
	"os"
	"testing"
	"testing/synctest"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestStageOnceStagerPanics checks that a materialization waiting for
// another's staging of its tree, when that staging panics, gets no half
// tree and no error of the other's: it stages the tree itself.
func TestStageOnceStagerPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const content = "---\nname: s\ndescription: the s skill\n---\nDo s.\n"
		files := []cache.File{{Path: "SKILL.md", Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))}}
		c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
		release := make(chan struct{})
		panicked := make(chan any, 1)
		go func() {
			defer func() { panicked <- recover() }()
			c.stageOnce(t.Context(), "s", files, func(root *os.Root) ([]cache.File, error) {
				f, err := root.OpenFile("SKILL.md", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
				if err == nil {
					io.WriteString(f, content[:5]) // half written
					f.Close()
				}
				<-release
				panic("the first staging's writer panicked")
			})
		}()
		synctest.Wait()
		type result struct {
			dir, digest string
			err         error
		}
		waited := make(chan result, 1)
		go func() {
			dir, digest, err := c.stageOnce(t.Context(), "s", files, func(root *os.Root) ([]cache.File, error) {
				f, err := root.OpenFile("SKILL.md", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
				if err != nil {
					return nil, err
				}
				_, err = io.WriteString(f, content)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				return files, err
			})
			waited <- result{dir, digest, err}
		}()
		synctest.Wait()
		close(release)
		if p := <-panicked; p == nil {
			t.Fatal("the first staging did not panic")
		}
		r := <-waited
		if r.err != nil || r.digest != cache.Digest("s", files) {
			t.Fatalf("stageOnce after the first panicked = %s, %s, %v; want the tree", r.dir, r.digest, r.err)
		}
		got, err := os.ReadFile(r.dir + "/SKILL.md")
		if err != nil || string(got) != content {
			t.Errorf("the tree's SKILL.md = %q, %v; want %q", got, err, content)
		}
		c.flightMu.Lock()
		left := len(c.flights)
		c.flightMu.Unlock()
		if left != 0 {
			t.Errorf("%d flights left after both ended", left)
		}
	})
}
