package modeltest_test

import (
	"context"
	"sync"
	"testing"
)

// barrier holds the first n callers of wait until all n have arrived,
// then lets them go together; later callers pass at once. A stand-in
// model that waits on it before answering has the n runs that reach it
// in flight at the same time, with no clock involved.
type barrier struct {
	ctx  context.Context
	n    int
	mu   sync.Mutex
	seen int
	all  chan struct{} // closed once n callers have arrived
}

func newBarrier(ctx context.Context, n int) *barrier {
	return &barrier{ctx: ctx, n: n, all: make(chan struct{})}
}

// wait returns once n callers have called it, or when the test ends.
func (b *barrier) wait() {
	b.mu.Lock()
	b.seen++
	if b.seen == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-b.ctx.Done():
	}
}

func TestBarrier(t *testing.T) {
	const n = 3
	b := newBarrier(t.Context(), n)
	var wg sync.WaitGroup
	passed := make(chan int, n+1)
	for i := range n - 1 {
		wg.Go(func() { b.wait(); passed <- i })
	}
	select {
	case i := <-passed:
		t.Fatalf("caller %d passed with %d of %d arrived", i, n-1, n)
	default:
	}
	b.wait() // the n-th lets all through
	wg.Wait()
	b.wait() // a later caller passes at once
	if len(passed) != n-1 {
		t.Errorf("%d callers passed, want %d", len(passed), n-1)
	}
}
