package requirement

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// REVIEW: joinRanges builds the product of every range's "||"
// alternatives before any limit is checked: k requirements of two
// alternatives each make 2^k groups.
func TestReviewJoinRangesExplodes(t *testing.T) {
	t.Logf("IsRange(%q) = %v", "^1||^0.1", version.IsRange("^1||^0.1"))
	spec, err := source.Parse("github:acme/x@^1||^0.1")
	t.Logf("source.Parse = %+v, %v", spec, err)
	src, err := github.Parse(spec.Text)
	t.Logf("github.Parse = ref %q, %v", src.Ref, err)
	for _, k := range []int{10, 14, 18} {
		ranges := make([]string, k)
		for i := range ranges {
			ranges[i] = fmt.Sprintf("^1||^0.%d", i+1)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := joinRanges(ranges)
		runtime.ReadMemStats(&after)
		t.Logf("k=%d: %v, allocated %d MB, err=%v", k, time.Since(start), (after.TotalAlloc-before.TotalAlloc)>>20, err)
	}
}
