//go:build unix

package install

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentadaptor/agentadaptor/skill"
)

// BenchmarkAddArchiveAudit times a cold Add, with the trust checks (the
// audit on, as agentskills add has it), of every skill of a repository
// snapshot (a tar.gz file) into claude-code and codex, two ways side by
// side: "stream" audits each file as the extraction writes it
// (audit.Scanner), "reread" audits each skill by reading its extracted
// tree again, as before. Each round adds the archive both ways, taking
// turns going first, so that a loaded machine weighs on both alike, and
// reports the median of each way's wall and CPU time (user and system,
// of the whole process) over the rounds: stream-ns/op, reread-ns/op, stream-cpu-ns/op,
// reread-cpu-ns/op. Two repositories: the 500 small skills of
// bench/repocmp (a SKILL.md and a 1.5 KiB notes file each), and 100
// skills of the size published ones have (a SKILL.md and four 16 KiB
// files of instructions and scripts).
func BenchmarkAddArchiveAudit(b *testing.B) {
	for _, repo := range []struct {
		name          string
		skills, files int // files besides SKILL.md
		size          int // bytes of each
	}{
		{"500x1.5KiB", 500, 1, 1500},
		{"100x4x16KiB", 100, 4, 16 << 10},
	} {
		archive := filepath.Join(b.TempDir(), "repo.tar.gz")
		if err := os.WriteFile(archive, benchRepoArchive(b, repo.skills, repo.files, repo.size), 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(repo.name, func(b *testing.B) {
			base := b.TempDir()
			var wall, cpu [2][]time.Duration // stream, reread
			for i := 0; b.Loop(); i++ {
				for k := range 2 {
					way := (i + k) % 2
					w, c := addAudited(b, archive, filepath.Join(base, fmt.Sprint(i, way)), way == 1)
					wall[way] = append(wall[way], w)
					cpu[way] = append(cpu[way], c)
				}
			}
			for way, name := range []string{"stream", "reread"} {
				b.ReportMetric(float64(median(wall[way])), name+"-ns/op")
				b.ReportMetric(float64(median(cpu[way])), name+"-cpu-ns/op")
			}
		})
	}
}

// benchRepoArchive returns a tar.gz of a repository snapshot of n skills,
// each a SKILL.md and files files of size bytes of ordinary text, under
// repo-main/skills/.
func benchRepoArchive(b *testing.B, n, files, size int) []byte {
	b.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	add := func(name, body string, mode int64) {
		if err := tw.WriteHeader(&tar.Header{Name: "repo-main/" + name, Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(body))}); err != nil {
			b.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	line := "Check the inputs, then run the step; see the reference for the options and what each one does.\n"
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		add("skills/"+name+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: benchmark skill %d. Use when measuring installs from a repository.\n---\n# %s\n\nStep one, step two; see references/.\n", name, i, name), 0o644)
		for j := range files {
			unit := fmt.Sprintf("%s %d: ", name, j) + line
			body := strings.Repeat(unit, size/len(unit)+1)[:size]
			if j%2 == 1 {
				add(fmt.Sprintf("skills/%s/scripts/step-%d.sh", name, j), "#!/bin/sh\n"+body, 0o755)
				continue
			}
			add(fmt.Sprintf("skills/%s/references/notes-%d.md", name, j), body, 0o644)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// addAudited adds the archive src with the default trust checker, in a
// new project with a new skill cache under base, the audit reading the
// extracted trees again when reread is set, and returns the wall and CPU
// time the Add took.
func addAudited(b *testing.B, src, base string, reread bool) (wall, cpu time.Duration) {
	claude, _ := LookupAgent("claude-code")
	codex, _ := LookupAgent("codex")
	env := Env{Home: filepath.Join(base, "home"), Project: filepath.Join(base, "p"), Getenv: func(string) string { return "" }}
	os.MkdirAll(env.Project, 0o755)
	c := skill.NewCache(skill.WithSkillCacheRoot(filepath.Join(base, "cache")))
	in := New(env, WithCache(c), WithLockDir(filepath.Join(base, "locks")), WithTrust(nil, Trust{}))
	in.rereadAudit = reread
	start, before := time.Now(), cpuTime()
	if _, err := in.Add(b.Context(), AddRequest{Sources: []string{src}, Agents: []Agent{claude, codex}}); err != nil {
		b.Fatal(err)
	}
	wall, cpu = time.Since(start), cpuTime()-before
	os.RemoveAll(base)
	return wall, cpu
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// median returns the median of d.
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
