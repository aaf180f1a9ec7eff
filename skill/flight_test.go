package skill

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestStageOnceAtOnce checks the third sentence of rule 3: materializations
// of one tree at the same time stage it once, the others waiting for its
// tree, and stage anew when the first fails.
func TestStageOnceAtOnce(t *testing.T) {
	const content, n = "---\nname: s\ndescription: the s skill\n---\nDo s.\n", 4
	files := []cache.File{{Path: "SKILL.md", Size: int64(len(content)), Sum: sha256.Sum256([]byte(content))}}
	errFirst := errors.New("the first staging failed")
	tests := []struct {
		name       string
		firstFails bool
		wantWrites int32 // stagings written, all told
		wantFailed int   // materializations that fail
	}{
		{"one staging", false, 1, 0},
		{"the first fails", true, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
				release := make(chan struct{})
				var writes atomic.Int32
				write := func(root *os.Root) ([]cache.File, error) {
					first := writes.Add(1) == 1
					<-release
					if first && tt.firstFails {
						return nil, errFirst
					}
					f, err := root.OpenFile("SKILL.md", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
					if err != nil {
						return nil, err
					}
					_, err = io.WriteString(f, content)
					if cerr := f.Close(); err == nil {
						err = cerr
					}
					return files, err
				}
				type result struct {
					dir string
					err error
				}
				results := make(chan result, n)
				for range n {
					go func() {
						dir, _, err := c.stageOnce(t.Context(), "s", files, write)
						results <- result{dir, err}
					}()
				}
				synctest.Wait() // every materialization writes or waits
				if got := writes.Load(); got != 1 {
					t.Errorf("%d materializations at once write %d stagings before the first ends, want 1", n, got)
				}
				close(release)
				failed, dirs := 0, map[string]bool{}
				for range n {
					r := <-results
					switch {
					case errors.Is(r.err, errFirst):
						failed++
					case r.err != nil:
						t.Errorf("stageOnce = %v", r.err)
					default:
						dirs[r.dir] = true
					}
				}
				if got := writes.Load(); got != tt.wantWrites || failed != tt.wantFailed || len(dirs) != 1 {
					t.Errorf("stagings written %d, failed %d, trees %v; want %d, %d, one tree", got, failed, dirs, tt.wantWrites, tt.wantFailed)
				}
			})
		})
	}
}

// TestStageOnceWaitEndsWithContext checks that a materialization waiting
// for another's staging of its tree waits only as long as its context
// allows.
func TestStageOnceWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewCache(WithSkillCacheRoot(cachetest.Root(t)))
		release := make(chan struct{})
		files := []cache.File{{Path: "SKILL.md", Size: 1, Sum: sha256.Sum256([]byte("x"))}}
		first := make(chan error, 1)
		go func() {
			_, _, err := c.stageOnce(t.Context(), "s", files, func(*os.Root) ([]cache.File, error) {
				<-release
				return nil, errors.New("stopped")
			})
			first <- err
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		waited := make(chan error, 1)
		go func() {
			_, _, err := c.stageOnce(ctx, "s", files, func(*os.Root) ([]cache.File, error) {
				t.Error("the waiting materialization staged while the first was under way")
				return nil, nil
			})
			waited <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Errorf("stageOnce waiting with its context canceled = %v, want %v", err, context.Canceled)
		}
		close(release)
		<-first
	})
}
