package admission_test

import (
	"os"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
)

// TestMain says which tests were skipped for a module the go command
// could not download (the CRDs), and how to fix it.
func TestMain(m *testing.M) {
	os.Exit(testroot.Main(m))
}
