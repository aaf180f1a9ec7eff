package version_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Rule 1: which reference text is a range.
func TestIsRange(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"^1.2", true},
		{"~1.2", true},
		{"1.*", true},
		{"*", true},
		{">=1.0 <2", true},
		{">=1.0,<2", true},
		{"=1.2.3", true},
		{"1.2 - 1.4", true},
		{"^1 || ^2", true},
		{"<2", true},
		{"v1.2.3", false},
		{"1.2.3", false},
		{"1.x", false},
		{"8.x-2.x", false},
		{"main", false},
		{"release/v1", false},
		{"", false},
		{"0123456789abcdef0123456789abcdef01234567", false},
	} {
		if got := version.IsRange(tc.text); got != tc.want {
			t.Errorf("IsRange(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// Rule 2: what ParseRange reads, and its errors.
func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		wantErr    string // "" when the range is valid
	}{
		{"caret", "^1.2", ""},
		{"tilde", "~1.2", ""},
		{"x", "1.x", ""},
		{"star", "1.*", ""},
		{"and", ">=1.0 <2", ""},
		{"or", "^1 || ^2", ""},
		{"hyphen", "1.2 - 1.4", ""},
		{"exact", "=1.2.3", ""},
		{"empty", "", "empty"},
		{"spaces", "   ", "empty"},
		{"garbage", "^^1", "write one such as"},
		{"letters", ">=one", "write one such as"},
		{"control", "^1.2\n", "control character"},
		{"nul", "^1\x00", "control character"},
		{"too long", "^" + strings.Repeat("1", 600), "a range has at most 512"},
		{"too many groups", strings.Repeat("^1 || ", 40) + "^1", "groups"},
		{"huge number", "^99999999999999999999999", "write one such as"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := version.ParseRange(tc.text)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseRange(%q) = %v", tc.text, err)
				}
				if err := version.CheckRange(tc.text); err != nil {
					t.Errorf("CheckRange(%q) = %v", tc.text, err)
				}
				if r.String() != tc.text {
					t.Errorf("String() = %q, want %q", r.String(), tc.text)
				}
				return
			}
			if !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ParseRange(%.40q) = %v, want source.ErrInvalid saying %q", tc.text, err, tc.wantErr)
			}
			if err := version.CheckRange(tc.text); err == nil || errors.Is(err, source.ErrInvalid) {
				t.Errorf("CheckRange(%.40q) = %v, want an error without a sentinel", tc.text, err)
			}
		})
	}
}

var tags = []string{
	"main", "latest", "v1", "v1.2", "release-1.9.0", "1.02.3",
	"v0.9.0", "v1.0.0", "v1.2.0", "v1.2.7", "v1.4.2", "v1.5.0-rc.1",
	"v2.0.0-beta.1", "v2.0.0", "2.1.0", "v2.1.0", "v3.0.0-rc.1",
	"v18446744073709551616.0.0", // over 2^64: no version
}

// Rules 3 to 5: the pick.
func TestPick(t *testing.T) {
	for _, tc := range []struct {
		rng, want string
	}{
		{"^1.2", "v1.4.2"},
		{"~1.2", "v1.2.7"},
		{"1.*", "v1.4.2"},
		{"^1", "v1.4.2"},
		{"1.x", "v1.4.2"},
		{">=1.0 <2", "v1.4.2"},
		{"=1.2.0", "v1.2.0"},
		{"<1", "v0.9.0"},
		{"^1 || ^2", "2.1.0"},          // equal to v2.1.0: first in byte order
		{"^1.4.0-rc.1", "v1.5.0-rc.1"}, // a pre-release range admits other pre-releases
		{"~1.5.0-rc.0", "v1.5.0-rc.1"},
		{">=2.0.0-beta.0 <2.0.0", "v2.0.0-beta.1"},
		{"^3.0.0-rc.1", "v3.0.0-rc.1"},
		{"*", "2.1.0"}, // no pre-release without one named
	} {
		r, err := version.ParseRange(tc.rng)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Pick(tags)
		if err != nil || got != tc.want {
			t.Errorf("ParseRange(%q).Pick = %q, %v, want %q", tc.rng, got, err, tc.want)
		}
	}
}

// Rule 5: the pick does not depend on the listing's order.
func TestPickOrder(t *testing.T) {
	r, _ := version.ParseRange("^2")
	for _, list := range [][]string{{"v2.1.0", "2.1.0"}, {"2.1.0", "v2.1.0"}, {"v2.1.0+b", "v2.1.0+a"}} {
		got, err := r.Pick(list)
		want := min(list[0], list[1])
		if err != nil || got != want {
			t.Errorf("Pick(%q) = %q, %v, want %q", list, got, err, want)
		}
	}
}

// Rule 5: nothing admitted is ErrNotFound naming the range and the
// highest tags.
func TestPickNotFound(t *testing.T) {
	for _, tc := range []struct {
		name, rng string
		tags      []string
		want      []string
	}{
		{"none admitted", "^4", tags, []string{`"^4"`, "11 version tags", "highest: v3.0.0-rc.1, 2.1.0, v2.1.0"}},
		{"no version tags", "^1", []string{"main", "v1", "latest"}, []string{`"^1"`, "none of the 3 tags is a version"}},
		{"empty list", "^1", nil, []string{"none of the 0 tags"}},
		{"pre-release not named", "^3", []string{"v3.0.0-rc.1"}, []string{"highest: v3.0.0-rc.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := version.ParseRange(tc.rng)
			_, err := r.Pick(tc.tags)
			if !errors.Is(err, source.ErrNotFound) {
				t.Fatalf("Pick = %v, want source.ErrNotFound", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Pick = %q, want it to say %q", err, w)
				}
			}
		})
	}
}

// Rule 7: 10,000 tags are picked from; more than MaxTags are refused.
func TestPickMany(t *testing.T) {
	many := make([]string, 0, version.MaxTags+1)
	for i := range 10000 {
		many = append(many, fmt.Sprintf("v%d.%d.%d", i/1000, i/10%100, i%10))
	}
	r, _ := version.ParseRange("~3.5")
	if got, err := r.Pick(many); err != nil || got != "v3.5.9" {
		t.Fatalf("Pick of 10,000 tags = %q, %v, want v3.5.9", got, err)
	}
	for len(many) <= version.MaxTags {
		many = append(many, "x")
	}
	if _, err := r.Pick(many); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "name a tag or a commit") {
		t.Fatalf("Pick of %d tags = %v, want source.ErrInvalid", len(many), err)
	}
	if _, err := version.Latest(many); !errors.Is(err, source.ErrInvalid) {
		t.Fatalf("Latest of %d tags = %v, want source.ErrInvalid", len(many), err)
	}
}

// Rule 3: which tags are versions.
func TestIsVersion(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		want bool
	}{
		{"v1.2.3", true},
		{"1.2.3", true},
		{"v2.0.0-rc.1", true},
		{"1.2.3+build.5", true},
		{"v1", false},
		{"v1.2", false},
		{"vv1.2.3", false},
		{"V1.2.3", false},
		{"1.02.3", false},
		{"release-1.2.3", false},
		{"v1.2.3 ", false},
		{"18446744073709551616.0.0", false},
		{"18446744073709551615.0.0", true},
		{"v" + strings.Repeat("9", 300) + ".0.0", false},
		{"", false},
	} {
		if got := version.IsVersion(tc.tag); got != tc.want {
			t.Errorf("IsVersion(%.40q) = %v, want %v", tc.tag, got, tc.want)
		}
	}
}

// Rule 6: the latest version.
func TestLatest(t *testing.T) {
	for _, tc := range []struct {
		name string
		tags []string
		want string
	}{
		{"release over pre-release", tags, "2.1.0"},
		{"only pre-releases", []string{"v1.0.0-rc.1", "v1.0.0-rc.2", "main"}, "v1.0.0-rc.2"},
		{"one", []string{"0.0.1"}, "0.0.1"},
	} {
		got, err := version.Latest(tc.tags)
		if err != nil || got != tc.want {
			t.Errorf("%s: Latest = %q, %v, want %q", tc.name, got, err, tc.want)
		}
	}
	for _, list := range [][]string{nil, {"main", "v1"}} {
		if _, err := version.Latest(list); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("Latest(%q) = %v, want source.ErrNotFound", list, err)
		}
	}
}

func TestAdmits(t *testing.T) {
	r, _ := version.ParseRange("^1.2")
	for tag, want := range map[string]bool{"v1.2.0": true, "1.9.9": true, "v2.0.0": false, "v1.3.0-rc.1": false, "main": false, "v1": false} {
		if got := r.Admits(tag); got != want {
			t.Errorf("Admits(%q) = %v, want %v", tag, got, want)
		}
	}
}

func TestCaret(t *testing.T) {
	for tag, want := range map[string]string{"v2.1.0": "^2.1.0", "0.3.4": "^0.3.4", "v3.0.0-rc.1+b": "^3.0.0-rc.1"} {
		got, err := version.Caret(tag)
		if err != nil || got != want {
			t.Errorf("Caret(%q) = %q, %v, want %q", tag, got, err, want)
		}
		r, err := version.ParseRange(got)
		if err != nil || !r.Admits(tag) {
			t.Errorf("ParseRange(%q) = %v; it must admit %q", got, err, tag)
		}
	}
	if _, err := version.Caret("main"); !errors.Is(err, source.ErrInvalid) {
		t.Errorf("Caret(main) = %v, want source.ErrInvalid", err)
	}
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"v1.2.3", "1.2.3", 0},
		{"v1.2.3", "v1.10.0", -1},
		{"v2.0.0", "v2.0.0-rc.1", 1},
		{"main", "v0.0.1", -1},
		{"v0.0.1", "main", 1},
		{"main", "dev", 0},
	} {
		if got := version.Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// PickTag and LatestTag give the tag's commit.
func TestPickTag(t *testing.T) {
	list := []version.Tag{{"main", "c0"}, {"v1.2.0", "c1"}, {"v1.4.0", "c2"}, {"v2.0.0", "c3"}, {"v2.1.0-rc.1", "c4"}}
	r, _ := version.ParseRange("^1.2")
	if got, err := r.PickTag(list); err != nil || got != list[2] {
		t.Errorf("PickTag = %v, %v, want %v", got, err, list[2])
	}
	if got, err := version.LatestTag(list); err != nil || got != list[3] {
		t.Errorf("LatestTag = %v, %v, want %v", got, err, list[3])
	}
	r, _ = version.ParseRange("^3")
	if _, err := r.PickTag(list); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("PickTag(^3) = %v, want source.ErrNotFound", err)
	}
	if _, err := version.LatestTag(list[:1]); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("LatestTag(main) = %v, want source.ErrNotFound", err)
	}
}

func ExampleRange_Pick() {
	r, _ := version.ParseRange("^1.2")
	tag, _ := r.Pick([]string{"v1.1.0", "v1.2.0", "v1.4.2", "v1.5.0-rc.1", "v2.0.0", "main"})
	fmt.Println(tag)
	// Output: v1.4.2
}

// BenchmarkPick picks from 10,000 tags, as a repository with many
// releases lists them.
func BenchmarkPick(b *testing.B) {
	many := make([]string, 0, 10000)
	for i := range 10000 {
		many = append(many, fmt.Sprintf("v%d.%d.%d", i/1000, i/10%100, i%10))
	}
	r, _ := version.ParseRange("~3.5")
	for b.Loop() {
		if _, err := r.Pick(many); err != nil {
			b.Fatal(err)
		}
	}
}

// CheckRef checks a range as a range and anything else with the source's
// own rules, and names both reasons when an invalid range is no ref either.
func TestCheckRef(t *testing.T) {
	errRef := errors.New("not a ref")
	noRef := func(string) error { return errRef }
	anyRef := func(string) error { return nil }
	if err := version.CheckRef("^1.2", noRef); err != nil {
		t.Errorf("valid range: %v", err)
	}
	if err := version.CheckRef("main", anyRef); err != nil {
		t.Errorf("ref: %v", err)
	}
	if err := version.CheckRef("main", noRef); err != errRef {
		t.Errorf("ref: got %v, want the checker's error", err)
	}
	err := version.CheckRef("^abc", noRef)
	if !errors.Is(err, errRef) || !strings.Contains(err.Error(), "; read as a version range, ") {
		t.Errorf("invalid range, invalid ref: %v", err)
	}
	err = version.CheckRef("^abc", anyRef)
	if err == nil || !strings.HasPrefix(err.Error(), `ref "^abc": `) {
		t.Errorf("invalid range, valid ref: %v", err)
	}
}
