package eval

import (
	"os"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// TestMain runs the tests, then says in go test's default output which
// tools the skipped tests lacked and how to install them.
func TestMain(m *testing.M) {
	os.Exit(testroot.Main(m))
}
