package admission_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/policy"
	"github.com/agentadaptor/agentadaptor/policy/admission"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// loadPolicy reads a policy file of testdata.
func loadPolicy(t *testing.T, name string) *policy.Policy {
	t.Helper()
	file := filepath.Join("testdata", name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse(data, file)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// golden compares got with the file testdata/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s: (-want +got)\n%s", file, diff)
	}
}

// Rule 8: each format's objects and notes, for keys, identities, a
// trusted root, commits and several repositories, as golden files.
func TestGolden(t *testing.T) {
	p := loadPolicy(t, "policy.yaml")
	for _, f := range admission.Formats() {
		t.Run(string(f), func(t *testing.T) {
			e, err := admission.Policies(p, f)
			if err != nil {
				t.Fatalf("Policies(%s) = %v", f, err)
			}
			golden(t, string(f)+".yaml", e.YAML)
			golden(t, string(f)+".notes", []byte(strings.Join(e.Notes, "\n")+"\n"))
			again, err := admission.Policies(p, f)
			if err != nil || string(again.YAML) != string(e.YAML) {
				t.Errorf("Policies(%s) again = %v, not the same bytes", f, err)
			}
		})
	}
}
