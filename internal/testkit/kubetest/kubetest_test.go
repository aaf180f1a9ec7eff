package kubetest

import (
	"strings"
	"testing"
)

const job = `apiVersion: batch/v1
kind: Job
metadata:
  name: x
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox
`

// TestDecodeRefuses checks that what Kubernetes would refuse or read
// otherwise fails the decoding: a field the type lacks, at any depth, a
// duplicate key, a value of another type, an unknown kind; and that the
// well-formed Job decodes.
func TestDecodeRefuses(t *testing.T) {
	if _, err := Decode([]byte(job)); err != nil {
		t.Fatalf("Decode(job) = %v; want it decoded", err)
	}
	tests := []struct {
		name, doc, want string
	}{
		{"unknown field", strings.Replace(job, "image: busybox", "image: busybox\n          imagee: x", 1), `unknown field "imagee"`},
		{"unknown top field", job + "status2: {}\n", `unknown field "status2"`},
		{"duplicate key", strings.Replace(job, "backoffLimit: 0", "backoffLimit: 0\n  backoffLimit: 1", 1), "already set"},
		{"wrong type", strings.Replace(job, "backoffLimit: 0", "backoffLimit: zero", 1), "cannot unmarshal"},
		{"yes is a boolean", strings.Replace(job, "image: busybox", "image: busybox\n          args: [yes]", 1), "cannot unmarshal bool"},
		{"unknown kind", strings.Replace(job, "kind: Job", "kind: CronJob", 1), `kind "CronJob": not an object this package knows`},
		{"sandbox field", "apiVersion: extensions.agents.x-k8s.io/v1beta1\nkind: SandboxClaim\nmetadata: {name: x}\nspec:\n  templateRef: {name: x}\n", `unknown field "templateRef"`},
		{"second document", job + "---\n" + strings.Replace(job, "restartPolicy", "restartPolicyy", 1), "document 2"},
		{"nothing", "", "no document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

// TestExpand checks Expand against the cases of the kubelet's own
// expansion rule: $$ is $, a defined $(VAR) its value, an undefined one,
// a lone $ and an unclosed $( left as written.
func TestExpand(t *testing.T) {
	env := map[string]string{"K": "secret", "E": ""}
	for in, want := range map[string]string{
		"$(K)":       "secret",
		"a$(K)b":     "asecretb",
		"$(E)x":      "x",
		"$(U)":       "$(U)",
		"$$(K)":      "$(K)",
		"$$$(K)":     "$secret",
		"$$":         "$",
		"$$$$":       "$$",
		"$":          "$",
		"a$":         "a$",
		"$x":         "$x",
		"$(K":        "$(K",
		"cost $5":    "cost $5",
		"no dollars": "no dollars",
	} {
		if got := Expand(in, env); got != want {
			t.Errorf("Expand(%q) = %q; want %q", in, got, want)
		}
	}
}
