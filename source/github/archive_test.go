package github_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/cachetest"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/github"
)

const top = "o-r-0123456"

// rawTar is a tar of the entries as given, with no top folder added.
func rawTar(t testing.TB, entries ...entry) []byte {
	t.Helper()
	data := repoTarball(t, "", "", entries...)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	must(t, err)
	var out bytes.Buffer
	_, err = out.ReadFrom(zr)
	must(t, err)
	return out.Bytes()
}

func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(data)
	must(t, err)
	must(t, zw.Close())
	return buf.Bytes()
}

func pdfSkill(extra ...entry) []entry {
	return append([]entry{{name: "skills/pdf/SKILL.md", body: skillMD("pdf")}}, extra...)
}

// TestArchiveRules feeds the opener hostile and broken tarballs. Each must
// fail with its class of error, and leave nothing in the cache (rule 12).
func TestArchiveRules(t *testing.T) {
	valid := repoTarball(t, top, commitA, pdfSkill()...)
	tests := []struct {
		name    string
		tarball func(t *testing.T) []byte
		opts    []github.Option
		matOpts []skill.DefaultMaterializerOption
		path    string
		want    error
		says    string
	}{
		{
			name: "two top folders", want: skill.ErrArchiveFormat, says: "one top folder",
			tarball: func(t *testing.T) []byte {
				return gz(t, rawTar(t, entry{name: top + "/skills/pdf/SKILL.md", body: skillMD("pdf")}, entry{name: "other/skills/pdf/x.md", body: "x"}))
			},
		},
		{
			name: "a file beside the top folder", want: skill.ErrArchiveFormat, says: "not inside a top folder",
			tarball: func(t *testing.T) []byte {
				return gz(t, rawTar(t, entry{name: top + "/skills/pdf/SKILL.md", body: skillMD("pdf")}, entry{name: "loose.md", body: "x"}))
			},
		},
		{
			name: "no top folder", want: skill.ErrArchiveFormat, says: "not inside a top folder",
			tarball: func(t *testing.T) []byte { return gz(t, rawTar(t, entry{name: "SKILL.md", body: skillMD("pdf")})) },
		},
		{
			name: "another commit", want: skill.ErrArchiveFormat, says: "the archive is of commit " + commitB,
			tarball: func(t *testing.T) []byte { return repoTarball(t, top, commitB, pdfSkill()...) },
		},
		{
			name: "a device", want: skill.ErrArchiveUnsafe, says: "not a file, folder or link",
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/dev", typ: tar.TypeChar})...)
			},
		},
		{
			name: "a hard link out of the top folder", want: skill.ErrArchiveUnsafe, says: "outside the archive's top folder",
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/h", typ: tar.TypeLink, link: "/etc/passwd"})...)
			},
		},
		{
			name: "a symbolic link out of the skill", want: skill.ErrArchiveUnsafe,
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/s", typ: tar.TypeSymlink, link: "../../../../etc/passwd"})...)
			},
		},
		{
			name: "a name that climbs out", want: skill.ErrArchiveUnsafe,
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/../../../../escape", body: "x"})...)
			},
		},
		{
			name: "data after the tar end", want: skill.ErrArchiveFormat, says: "data after the end",
			tarball: func(t *testing.T) []byte {
				data := rawTar(t, entry{name: top + "/skills/pdf/SKILL.md", body: skillMD("pdf")})
				return gz(t, append(data, "trailing junk"...))
			},
		},
		{
			name: "truncated", want: skill.ErrArchiveFormat, says: "corrupt",
			tarball: func(t *testing.T) []byte { return valid[:len(valid)/2] },
		},
		{
			name: "bad gzip checksum", want: skill.ErrArchiveFormat, says: "corrupt gzip stream",
			tarball: func(t *testing.T) []byte {
				data := bytes.Clone(valid)
				data[len(data)-6] ^= 0xff
				return data
			},
		},
		{
			name: "not gzip", want: skill.ErrArchiveFormat, says: "not a gzip stream",
			tarball: func(t *testing.T) []byte { return []byte("<html>a login page</html>") },
		},
		{
			name: "empty", want: skill.ErrArchiveFormat, says: "empty",
			tarball: func(t *testing.T) []byte { return gz(t, rawTar(t)) },
		},
		{
			name: "folder not in the commit", want: source.ErrNotFound, says: `no folder "skills/nope"`, path: "skills/nope",
			tarball: func(t *testing.T) []byte { return valid },
		},
		{
			name: "no SKILL.md", want: skill.ErrArchiveFormat, path: "skills",
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, entry{name: "skills/notes.md", body: "x"})
			},
		},
		{
			name: "over the download limit", want: skill.ErrArchiveLimit, says: "WithMaxDownloadSize",
			opts:    []github.Option{github.WithMaxDownloadSize(100)},
			tarball: func(t *testing.T) []byte { return valid },
		},
		{
			// Zeros outside the pinned folder compress to almost nothing;
			// they are counted all the same.
			name: "over the expanded limit", want: skill.ErrArchiveLimit, says: "WithMaxExpandedSize",
			opts: []github.Option{github.WithMaxExpandedSize(1 << 20)},
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "bomb.bin", body: strings.Repeat("\x00", 2<<20)})...)
			},
		},
		{
			name: "over the materializer's file limit", want: skill.ErrArchiveLimit,
			matOpts: []skill.DefaultMaterializerOption{skill.WithMaxFileSize(1000)},
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/big.md", body: strings.Repeat("y", 2000)})...)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.repos["o/r"] = true
			f.tarballs[commitA] = tt.tarball(t)
			c := f.client(t, tt.opts...)
			m, root := materializer(t, tt.matOpts...)
			path := tt.path
			if path == "" {
				path = "skills/pdf"
			}
			pin := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: path}, Commit: commitA}
			dir, err := m.Materialize(t.Context(), c.Skill("pdf", pin))
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Materialize(%v) = %q, %v, want %v saying %q", pin, dir, err, tt.want, tt.says)
			}
			t.Logf("error: %v", err)
			if !errors.Is(err, skill.ErrSkillMaterializationFailed) {
				t.Errorf("Materialize(%v) = %v, want it to wrap %v", pin, err, skill.ErrSkillMaterializationFailed)
			}
			cachetest.Empty(t, root)
		})
	}
}

// TestArchivePasses lists what the rules let through: odd entries outside
// the pinned folder, hard links inside the top folder, an archive without a
// pax header, ./-prefixed names.
func TestArchivePasses(t *testing.T) {
	tests := []struct {
		name    string
		tarball func(t *testing.T) []byte
		want    map[string]string
	}{
		{
			name: "a device outside the folder",
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "dev", typ: tar.TypeChar}, entry{name: "../../x", body: "x"})...)
			},
			want: map[string]string{"SKILL.md": "- " + skillMD("pdf")},
		},
		{
			name: "a hard link",
			tarball: func(t *testing.T) []byte {
				return repoTarball(t, top, commitA, pdfSkill(entry{name: "skills/pdf/copy.md", typ: tar.TypeLink, link: top + "/skills/pdf/SKILL.md"})...)
			},
			want: map[string]string{"SKILL.md": "- " + skillMD("pdf"), "copy.md": "- " + skillMD("pdf")},
		},
		{
			name:    "no pax header",
			tarball: func(t *testing.T) []byte { return repoTarball(t, top, "", pdfSkill()...) },
			want:    map[string]string{"SKILL.md": "- " + skillMD("pdf")},
		},
		{
			name: "names that start with ./",
			tarball: func(t *testing.T) []byte {
				return gz(t, rawTar(t, entry{name: "./" + top + "/", typ: tar.TypeDir}, entry{name: "./" + top + "/skills/pdf/SKILL.md", body: skillMD("pdf")}))
			},
			want: map[string]string{"SKILL.md": "- " + skillMD("pdf")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.repos["o/r"] = true
			f.tarballs[commitA] = tt.tarball(t)
			m, _ := materializer(t)
			pin := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: "skills/pdf"}, Commit: commitA}
			dir, err := m.Materialize(t.Context(), f.client(t).Skill("pdf", pin))
			if err != nil {
				t.Fatalf("Materialize(%v) = %v", pin, err)
			}
			if got := cachetest.Tree(t, dir); len(got) != len(tt.want) || got["SKILL.md"] != tt.want["SKILL.md"] {
				t.Errorf("Materialize(%v) tree = %v, want %v", pin, got, tt.want)
			}
		})
	}
}

// TestDownloadFailures breaks the download itself: the answer, the
// connection, the context. Nothing may land in the cache.
func TestDownloadFailures(t *testing.T) {
	valid := repoTarball(t, top, commitA, pdfSkill(entry{name: "pad.bin", body: strings.Repeat("z", 1<<16)})...)
	tests := []struct {
		name   string
		serve  func(w http.ResponseWriter, r *http.Request, cancel context.CancelFunc)
		want   error
		wantIs func(error) bool
	}{
		{
			name: "unknown commit", want: source.ErrNotFound,
			serve: func(w http.ResponseWriter, r *http.Request, _ context.CancelFunc) {
				apiError(w, http.StatusNotFound, "Not Found")
			},
		},
		{
			name: "rate limited", want: source.ErrRateLimited,
			serve: func(w http.ResponseWriter, r *http.Request, _ context.CancelFunc) {
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", "2000000000")
				apiError(w, http.StatusForbidden, "API rate limit exceeded")
			},
		},
		{
			name: "cut short",
			serve: func(w http.ResponseWriter, r *http.Request, _ context.CancelFunc) {
				w.Header().Set("Content-Length", "100000")
				w.Write(valid[:len(valid)/2])
			},
			wantIs: func(err error) bool { return strings.Contains(err.Error(), "unexpected EOF") },
		},
		{
			name: "cancelled", want: context.Canceled,
			serve: func(w http.ResponseWriter, r *http.Request, cancel context.CancelFunc) {
				w.Write(valid[:len(valid)/2])
				w.(http.Flusher).Flush()
				cancel()
				<-r.Context().Done()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			f := newFake(t)
			f.repos["o/r"] = true
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				if strings.Contains(r.URL.Path, "/tarball/") {
					tt.serve(w, r, cancel)
					return true
				}
				return false
			}
			m, root := materializer(t)
			pin := github.Pin{Source: github.Source{Owner: "o", Repo: "r", Path: "skills/pdf"}, Commit: commitA}
			_, err := m.Materialize(ctx, f.client(t).Skill("pdf", pin))
			switch {
			case err == nil:
				t.Fatalf("Materialize(%v) succeeded, want an error", pin)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("Materialize(%v) = %v, want %v", pin, err, tt.want)
			case tt.wantIs != nil && !tt.wantIs(err):
				t.Fatalf("Materialize(%v) = %v", pin, err)
			}
			t.Logf("error: %v", err)
			cachetest.Empty(t, root)
		})
	}
}

func TestOpenerRefusesBadPin(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	for _, p := range []github.Pin{
		{Source: github.Source{Owner: "o", Repo: "r"}, Commit: "main"},
		{Source: github.Source{Owner: "o", Repo: "r"}, Commit: commitA[:12]},
		{Source: github.Source{Owner: "o", Repo: "r", Path: "/abs"}, Commit: commitA},
		{Source: github.Source{Repo: "r"}, Commit: commitA},
	} {
		if _, err := c.Opener(p)(t.Context()); !errors.Is(err, source.ErrInvalid) {
			t.Errorf("Opener(%+v) = %v, want %v", p, err, source.ErrInvalid)
		}
	}
	if n := len(f.seen()); n != 0 {
		t.Errorf("bad pins made %d requests, want none", n)
	}
}
