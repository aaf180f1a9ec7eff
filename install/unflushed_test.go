package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// damaged returns what a crash may leave of a file replaced unflushed,
// whole being its new content and old the content it replaced (nil when
// none), named: whole cut short at each length, with the rest of its
// bytes zeros, and spliced with old at each offset (the first bytes of
// one, the others of the other). It returns neither version whole.
func damaged(whole, old []byte) map[string][]byte {
	out := map[string][]byte{}
	add := func(name string, b []byte) {
		if !bytes.Equal(b, whole) && !bytes.Equal(b, old) {
			out[name] = b
		}
	}
	for n := range len(whole) {
		add(fmt.Sprintf("cut to %d bytes", n), whole[:n])
		add(fmt.Sprintf("zeros after %d bytes", n), append(slices.Clone(whole[:n]), make([]byte, len(whole)-n)...))
		if n < len(old) {
			add(fmt.Sprintf("the new first %d bytes, then the old", n), append(slices.Clone(whole[:n]), old[n:]...))
			add(fmt.Sprintf("the old first %d bytes, then the new", n), append(slices.Clone(old[:n]), whole[n:]...))
		}
	}
	return out
}

// TestVerdictCutShortNotUsed checks the argument for writing a verdict
// unflushed (rememberVerdict): what a crash can leave of it (damaged:
// the file cut short, with a tail of zeros, or spliced with the verdict
// it replaced) is never used, and the whole file is.
func TestVerdictCutShortNotUsed(t *testing.T) {
	f := newFixture(t)
	root := t.TempDir()
	in := trustInstaller(t, f, root, nil, Trust{})
	st := &sourceTrust{in: in}
	st.ps.Kind, st.ps.Location = "git", "/srv/acme/tools"
	const pin, digest = "0123456789abcdef0123456789abcdef01234567", "ab12"
	st.verifiedPin, st.commitSigner = pin, "ba@example.org"
	in.rememberVerdict(&candidate{pin: pin, trust: st}, digest)
	file := filepath.Join(root, pinsDir, verdictKey(st.verdictSource(), pin, digest, ""))
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	st.commitSigner = "ab@example.org" // a splice may read "aa" or "bb"
	in.rememberVerdict(&candidate{pin: pin, trust: st}, digest)
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != len(whole) || bytes.Equal(old, whole) {
		t.Fatalf("the two verdicts are %q and %q, want two of one length", old, whole)
	}
	for name, b := range damaged(whole, old) {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if v, ok := in.recalledVerdict(st, pin, digest, ""); ok {
			t.Fatalf("a verdict %s (of %d) is used: %+v", name, len(whole), v)
		}
	}
	if err := os.WriteFile(file, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if v, ok := in.recalledVerdict(st, pin, digest, ""); !ok || v.Signer != "ab@example.org" {
		t.Errorf("the whole verdict gives %+v, %v", v, ok)
	}
}

// TestSourceMemoCutShortNotUsed checks the argument for writing a source
// memo unflushed (rememberSources): what a crash can leave of the memo an
// Add wrote over the memo of another pin (damaged: cut short, with a
// tail of zeros, or spliced with the other, which would name one pin and
// some trees of the other) is never used, at either pin, and the whole
// memo is.
func TestSourceMemoCutShortNotUsed(t *testing.T) {
	g := newFakeGitHub(t)
	files := func(v string) map[string]string {
		return map[string]string{
			"skills/alpha/SKILL.md": skillMD("alpha") + v,
			"skills/beta/SKILL.md":  skillMD("beta") + v,
		}
	}
	f := newFixture(t)
	root := cachetest.Root(t)
	in := f.remoteInstaller(t, root)
	ctx := t.Context()
	add := func(pin string, files map[string]string) []byte {
		t.Helper()
		g.publish("HEAD", pin, files)
		if _, err := in.Add(ctx, AddRequest{Sources: []string{"o/skills"}, Agents: agentsOf(t, "claude-code")}); err != nil {
			t.Fatal(err)
		}
		memos := sourceMemos(t, root)
		if len(memos) != 1 {
			t.Fatalf("Add left %d source memos, want 1", len(memos))
		}
		b, err := os.ReadFile(memos[0])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	old := add(commitA, files("old\n"))
	whole := add(commitB, files("new\n"))
	memo := sourceMemos(t, root)[0]
	var m sourceMemo
	if !unseal(whole, &m) {
		t.Fatalf("the memo is not sealed: %s", whole)
	}
	if len(old) != len(whole) {
		t.Fatalf("the memos are of %d and %d bytes, want one length", len(old), len(whole))
	}
	for name, b := range damaged(whole, old) {
		if err := os.WriteFile(memo, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, pin := range []string{commitA, commitB} {
			if got, ok := in.recalledSource(ctx, m.Source, pin); ok {
				t.Fatalf("a memo %s (of %d) is used at %s: %d skills", name, len(whole), pin[:7], len(got))
			}
		}
	}
	if err := os.WriteFile(memo, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := in.recalledSource(ctx, m.Source, commitB); !ok || len(got) != 2 {
		t.Errorf("the whole memo gives %d skills, %v; want 2, true", len(got), ok)
	}
}
