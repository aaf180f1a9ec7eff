package install

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
)

// TestVerifyRehashesMappedWrite checks rule 16's limit: a canonical
// copy changed through a shared mapping whose page was already dirty
// keeps every stat, yet Verify reports it modified and CheckTrust with
// Rehash refuses what it now holds, since both read every canonical copy.
func TestVerifyRehashesMappedWrite(t *testing.T) {
	f := newFixture(t)
	f.writeSkill(t, "kit/x", "x", strings.Repeat(" ", len(malicious)+8)+"\n")
	root := cachetest.Root(t)
	if _, err := trustInstaller(t, f, root, nil, Trust{}).Add(t.Context(), AddRequest{Sources: []string{filepath.Join(f.sources, "kit")}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f.env.Project, ".agents", "skills", "x", "SKILL.md")
	fd, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(fd.Fd()), 0, int(fi.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	first := m[0]
	poke(m, '#')
	poke(m, first) // the page dirty, its content unchanged
	for range 2 {
		cachetest.Settle()
		if _, err := trustInstaller(t, f, root, nil, Trust{}).List(t.Context(), ListRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	copy(m[len(m)-len(malicious)-2:], malicious) // no stat moves
	bad, err := trustInstaller(t, f, root, nil, Trust{}).Verify(t.Context())
	if err != nil || len(bad) != 1 || bad[0].Skill != "x" || bad[0].State != StateModified {
		t.Errorf("Verify() after a write through a mapping = %+v, %v; want x modified", bad, err)
	}
	got, err := trustInstaller(t, f, root, nil, Trust{}).CheckTrust(t.Context(), CheckTrustRequest{Rehash: true})
	if err != nil || len(got) != 1 || got[0].Skill != "x" {
		t.Errorf("CheckTrust(Rehash) after a write through a mapping = %+v, %v; want x refused", got, err)
	}
}

// poke sets b[0] to v, a store the compiler cannot leave out.
//
//go:noinline
func poke(b []byte, v byte) { b[0] = v }
