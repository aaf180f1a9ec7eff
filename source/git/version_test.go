package git_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/git"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// versionRepo is newRepo with version tags: v1.0.0 (annotated) and
// v1.2.0 (lightweight) at v1's commit, v1.4.2 (annotated) and
// v2.0.0-rc.1 at main's, and a branch 1.x at feature/x's.
type versionRepo struct {
	*testRepo
}

func newVersionRepo(t *testing.T) versionRepo {
	t.Helper()
	r := newRepo(t)
	gitIn(t, r.dir, "tag", "-a", "-m", "1.0.0", "v1.0.0", r.v1)
	gitIn(t, r.dir, "tag", "v1.2.0", r.v1)
	gitIn(t, r.dir, "tag", "-a", "-m", "1.4.2", "v1.4.2", r.main)
	gitIn(t, r.dir, "tag", "v2.0.0-rc.1", r.main)
	gitIn(t, r.dir, "branch", "1.x", r.feature)
	os.RemoveAll(r.bare)
	gitIn(t, filepath.Dir(r.dir), "clone", "--quiet", "--bare", r.dir, r.bare)
	return versionRepo{r}
}

// Rule 17: a range is resolved from the tags, on every transport.
func TestResolveRange(t *testing.T) {
	hermetic(t)
	r := newVersionRepo(t)
	for name, base := range transports(t, r.testRepo) {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			c := newClient(t, git.WithTempDir(tmp))
			for _, tt := range []struct {
				frag, commit, tag string
			}{
				{"#ref=^1.0", r.main, "v1.4.2"},
				{"#ref=~1.2&path=skills/review", r.v1, "v1.2.0"},
				{"#ref=%3E%3D1.0%20%3C1.3", r.v1, "v1.2.0"},
				{"#ref=>=1.0 <1.3", r.v1, "v1.2.0"},
				{"#ref==1.0.0", r.v1, "v1.0.0"},
				{"#ref=^2.0.0-rc.0", r.main, "v2.0.0-rc.1"},
				{"#ref=1.x", r.feature, ""}, // a branch
				{"#ref=v1.4.2", r.main, ""}, // a tag, named
			} {
				src, err := git.Parse(base + tt.frag)
				if err != nil {
					t.Fatalf("Parse(%s) = %v", tt.frag, err)
				}
				pin, err := c.Resolve(t.Context(), src)
				if err != nil || pin.Commit != tt.commit || pin.Version != tt.tag || pin.Source != src {
					t.Errorf("Resolve(%s) = %+v, %v; want %s, version %q", tt.frag, pin, err, tt.commit, tt.tag)
				}
			}
			emptyTemp(t, tmp)
		})
	}
}

// source.Versioned: Range, Version, Latest and WithRange.
func TestRemoteVersioned(t *testing.T) {
	hermetic(t)
	r := newVersionRepo(t)
	src, err := git.Parse(r.fileURL() + "#path=skills/review&ref=^1.0")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rem := git.NewRemote(src, git.WithTempDir(tmp))
	if rem.Range() != "^1.0" || rem.Version() != "" {
		t.Errorf("Range, Version = %q, %q; want ^1.0 and none", rem.Range(), rem.Version())
	}
	pin, err := rem.Resolve(t.Context())
	if err != nil || pin != r.main || rem.Version() != "v1.4.2" {
		t.Fatalf("Resolve = %q, %v, version %q; want %s at v1.4.2", pin, err, rem.Version(), r.main)
	}
	rem.Close()
	tag, commit, err := rem.Latest(t.Context())
	if err != nil || tag != "v1.4.2" || commit != r.main {
		t.Errorf("Latest = %q, %q, %v; want v1.4.2 at %s (annotated, peeled)", tag, commit, err, r.main)
	}
	want := r.fileURL() + "#ref=^2.0.0&path=skills/review"
	if got := rem.WithRange("^2.0.0"); got != want {
		t.Errorf("WithRange = %q, want %q", got, want)
	}
	back, err := git.Parse(rem.WithRange(">=2 <3"))
	if err != nil || back.Ref != ">=2 <3" || back.Path != "skills/review" {
		t.Errorf("Parse(WithRange) = %+v, %v", back, err)
	}
	if got := git.NewRemote(git.Source{URL: "https://token1234@git.example.com/r.git"}).WithRange("^1"); got != "git+https://git.example.com/r.git#ref=^1" {
		t.Errorf("WithRange of a URL with a user = %q, want it without", got)
	}
	if got := git.NewRemote(git.Source{URL: "https://git.example.com/r.git", Ref: "v1"}).Range(); got != "" {
		t.Errorf("Range of a tag = %q", got)
	}
	emptyTemp(t, tmp)
}

// Rule 17: a range's errors.
func TestResolveRangeErrors(t *testing.T) {
	hermetic(t)
	r := newVersionRepo(t)
	c := newClient(t)
	for _, tc := range []struct {
		frag string
		want error
		msg  []string
	}{
		{"#ref=^3", source.ErrNotFound, []string{`"^3"`, "highest: v2.0.0-rc.1, v1.4.2, v1.2.0", "file://"}},
		{"#ref=^1.5", source.ErrNotFound, []string{"no tag is admitted"}},
	} {
		src, err := git.Parse(r.fileURL() + tc.frag)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Resolve(t.Context(), src)
		if !errors.Is(err, tc.want) {
			t.Fatalf("Resolve(%s) = %v, want %v", tc.frag, err, tc.want)
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("Resolve(%s) = %q, want it to say %q", tc.frag, err, m)
			}
		}
	}
	for _, frag := range []string{"#ref=^^1", "#ref=>=one", "#ref=^" + strings.Repeat("1", 600), "#ref=^1%00"} {
		if _, err := git.Parse(r.fileURL() + frag); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "version range") {
			t.Errorf("Parse(%.40s) = %v, want source.ErrInvalid about the version range", frag, err)
		}
	}
	if _, err := c.Resolve(t.Context(), git.Source{URL: r.fileURL()[len("git+"):], Ref: "^^1"}); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Resolve of a bad range built by hand = %v, want source.ErrInvalid", err)
	}
	missing := git.Source{URL: "file://" + filepath.ToSlash(t.TempDir()) + "/none.git", Ref: "^1"}
	if _, err := c.Resolve(t.Context(), missing); err == nil {
		t.Errorf("Resolve of a missing repository succeeded")
	}
}

// packTags writes n tags of the given name length, all at commit, into
// the bare repository's packed-refs.
func packTags(t *testing.T, bare, commit string, n, nameLen int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# pack-refs with: peeled fully-peeled \n") // not sorted
	fmt.Fprintf(&b, "%s refs/heads/main\n", commit)
	for i := range n {
		name := fmt.Sprintf("v%d.%d.%d", i/1000, i/10%100, i%10)
		if pad := nameLen - len(name); pad > 0 {
			name += "-" + strings.Repeat("p", pad)
		}
		fmt.Fprintf(&b, "%s refs/tags/%s\n", commit, name)
	}
	if err := os.WriteFile(filepath.Join(bare, "packed-refs"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Rule 17: 10,000 tags are picked from; more than version.MaxTags, or a
// listing over 16 MiB, fail.
func TestResolveRangeManyTags(t *testing.T) {
	hermetic(t)
	r := newRepo(t)
	src, _ := git.Parse(r.fileURL() + "#ref=~3.5")
	c := newClient(t)

	packTags(t, r.bare, r.v1, 10000, 0)
	pin, err := c.Resolve(t.Context(), src)
	if err != nil || pin.Version != "v3.5.9" || pin.Commit != r.v1 {
		t.Fatalf("Resolve of 10,000 tags = %+v, %v; want v3.5.9", pin, err)
	}

	packTags(t, r.bare, r.v1, version.MaxTags+1, 0)
	if _, err := c.Resolve(t.Context(), src); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "name a tag or a commit") {
		t.Errorf("Resolve of %d tags = %v, want source.ErrInvalid", version.MaxTags+1, err)
	}

	packTags(t, r.bare, r.v1, 9000, 2000)
	if _, err := c.Resolve(t.Context(), src); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "16777216 bytes") {
		t.Errorf("Resolve of an 18 MB listing = %v, want source.ErrInvalid naming the limit", err)
	}
}
