package oci

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"

	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/version"
)

// Versions rule 1: where a range is read, and what stays a tag.
func TestParseReferenceRange(t *testing.T) {
	dgst := "sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		text, tag, rng, digest string
	}{
		{"oci://h.example/acme/review:^1.2", "", "^1.2", ""},
		{"oci://h.example/acme/review:~1.2", "", "~1.2", ""},
		{"oci://h.example/acme/review:1.*", "", "1.*", ""},
		{"oci://h.example/acme/review:>=1.0 <2", "", ">=1.0 <2", ""},
		{"oci://h.example/acme/review:^1 || ^2", "", "^1 || ^2", ""},
		{"oci://localhost:5000/acme/review:^1.2@" + dgst, "", "^1.2", dgst},
		{"oci://h.example/acme/review:1.x", "1.x", "", ""},
		{"oci://h.example/acme/review:v1.2.3", "v1.2.3", "", ""},
	} {
		r, err := ParseReference(tc.text)
		if err != nil {
			t.Errorf("ParseReference(%q) = %v", tc.text, err)
			continue
		}
		if r.Tag != tc.tag || r.Range != tc.rng || r.Digest != tc.digest {
			t.Errorf("ParseReference(%q) = %+v, want tag %q range %q digest %q", tc.text, r, tc.tag, tc.rng, tc.digest)
		}
		if r.String() != tc.text {
			t.Errorf("String() = %q, want %q", r.String(), tc.text)
		}
	}
	for _, text := range []string{"oci://h.example/acme/review:^^1", "oci://h.example/acme/review:>=one", "oci://h.example/acme/review:^" + strings.Repeat("1", 600)} {
		if _, err := ParseReference(text); !errors.Is(err, source.ErrInvalid) || !strings.Contains(err.Error(), "version range") {
			t.Errorf("ParseReference(%.50q) = %v, want source.ErrInvalid about the version range", text, err)
		}
	}
	_, opts := testOptions(t)
	if _, err := Push(t.Context(), newSkill(t, "review"), "oci://127.0.0.1:1/acme/review:^1", opts...); err == nil || !strings.Contains(err.Error(), "push to a tag") {
		t.Errorf("Push to a range = %v, want a refusal", err)
	}
}

// pushVersions pushes a different skill under each tag and returns each
// tag's digest.
func pushVersions(t *testing.T, host string, opts []Option, tags ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tag := range tags {
		dir := filepath.Join(t.TempDir(), "review")
		writeTree(t, dir, map[string]string{"SKILL.md": skillMD("review", "Reviews a change, "+tag)})
		d, err := Push(t.Context(), dir, "oci://"+host+"/acme/review:"+tag, opts...)
		if err != nil {
			t.Fatal(err)
		}
		out[tag] = d
	}
	return out
}

// Versions rule 2 and source.Versioned.
func TestRemoteRange(t *testing.T) {
	_, host := ocireg.Start(t, true)
	_, opts := testOptions(t)
	d := pushVersions(t, host, opts, "1.0.0", "v1.2.0", "1.4.2", "2.0.0-rc.1", "latest", "1", "1.x")
	base := "oci://" + host + "/acme/review"
	for _, tc := range []struct {
		rng, tag string
	}{
		{"^1", "1.4.2"},
		{"~1.2", "v1.2.0"},
		{">=1.0 <1.3", "v1.2.0"},
		{"^2.0.0-rc.0", "2.0.0-rc.1"},
	} {
		ref, err := ParseReference(base + ":" + tc.rng)
		if err != nil {
			t.Fatal(err)
		}
		r := NewRemote(ref, opts...)
		if r.Range() != tc.rng || r.Version() != "" {
			t.Errorf("Range, Version = %q, %q; want %q and none", r.Range(), r.Version(), tc.rng)
		}
		pin, err := r.Resolve(t.Context())
		if err != nil || pin != d[tc.tag] || r.Version() != tc.tag {
			t.Errorf("Resolve(%s) = %q, %v, version %q; want %s (%s)", ref, pin, err, r.Version(), d[tc.tag], tc.tag)
		}
		if got, err := Resolve(t.Context(), ref.String(), opts...); err != nil || got != d[tc.tag] {
			t.Errorf("oci.Resolve(%s) = %q, %v; want %s", ref, got, err, d[tc.tag])
		}
		a, err := r.Open(t.Context(), pin, "", nil)
		if err != nil {
			t.Fatalf("Open(%s) = %v", pin, err)
		}
		a.Close()
	}
	r := NewRemote(Reference{Host: host, Repository: "acme/review", Tag: "1.x"}, opts...)
	if r.Range() != "" {
		t.Errorf("Range of the tag 1.x = %q", r.Range())
	}
	if pin, err := r.Resolve(t.Context()); err != nil || pin != d["1.x"] || r.Version() != "" {
		t.Errorf("Resolve(:1.x) = %q, %v; want the tag's %s", pin, err, d["1.x"])
	}
	tag, pin, err := r.Latest(t.Context())
	if err != nil || tag != "1.4.2" || pin != d["1.4.2"] {
		t.Errorf("Latest = %q, %q, %v; want 1.4.2 at %s", tag, pin, err, d["1.4.2"])
	}
	if got, want := r.WithRange("^2.0.0"), base+":^2.0.0"; got != want {
		t.Errorf("WithRange = %q, want %q", got, want)
	}
	tags, err := Tags(t.Context(), host, "acme/review", 100, opts...)
	if err != nil || len(tags) != 7 {
		t.Errorf("Tags = %q, %v; want the 7 tags", tags, err)
	}

	for _, tc := range []struct {
		ref  string
		want error
		msg  string
	}{
		{base + ":^3", source.ErrNotFound, "highest: 2.0.0-rc.1, 1.4.2, v1.2.0"},
		{"oci://" + host + "/acme/none:^1", source.ErrNotFound, "acme/none"},
	} {
		ref, _ := ParseReference(tc.ref)
		_, err := NewRemote(ref, opts...).Resolve(t.Context())
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Resolve(%s) = %v, want %v saying %q", tc.ref, err, tc.want, tc.msg)
		}
	}
	ref, _ := ParseReference("oci://" + host + "/acme/none:^1")
	if _, _, err := NewRemote(ref, opts...).Latest(t.Context()); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("Latest of a missing repository = %v, want source.ErrNotFound", err)
	}
}

// Versions rule 2: a hostile registry's tag list.
func TestTagsHostile(t *testing.T) {
	for _, tc := range []struct {
		name string
		page func(w http.ResponseWriter, r *http.Request)
		want error
		msg  string
	}{
		{"endless pages", func(w http.ResponseWriter, r *http.Request) {
			var p int
			fmt.Sscanf(r.URL.Query().Get("last"), "t%d-", &p)
			var tags []string
			for i := range 1000 {
				tags = append(tags, fmt.Sprintf("t%d-%d", p+1, i))
			}
			w.Header().Set("Link", fmt.Sprintf(`</v2/acme/review/tags/list?n=1000&last=t%d-999>; rel="next"`, p+1))
			json.NewEncoder(w).Encode(map[string]any{"name": "acme/review", "tags": tags})
		}, source.ErrInvalid, "more than 20000 tags"},
		{"empty pages linked forever", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("last") == "stop" { // the test's own bound: never reached when the listing stops itself
				http.Error(w, "the client asked for a page past 1000 empty ones", http.StatusTeapot)
				return
			}
			var p int
			fmt.Sscanf(r.URL.Query().Get("last"), "p%d", &p)
			next := fmt.Sprintf("p%d", p+1)
			if p >= 1000 {
				next = "stop"
			}
			w.Header().Set("Link", fmt.Sprintf(`</v2/acme/review/tags/list?n=1000&last=%s>; rel="next"`, next))
			w.Write([]byte(`{"name":"acme/review","tags":[]}`))
		}, source.ErrNotServer, "empty page"},
		{"huge page", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"name":"acme/review","tags":["` + strings.Repeat("a", 5<<20) + `"]}`))
		}, nil, "list the tags"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }, nil, "list the tags"},
		{"no versions", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"name":"acme/review","tags":["latest","1","../../etc","v01.2.3"]}`))
		}, source.ErrNotFound, "none of the 4 tags"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v2/":
					w.Header().Set("Content-Type", "application/json")
					w.Write([]byte("{}"))
				case "/v2/acme/review/tags/list":
					w.Header().Set("Content-Type", "application/json")
					tc.page(w, r)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			_, opts := testOptions(t)
			ref, _ := ParseReference("oci://" + strings.TrimPrefix(srv.URL, "http://") + "/acme/review:^1")
			_, err := NewRemote(ref, opts...).Resolve(t.Context())
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Resolve = %v, want %v saying %q", err, tc.want, tc.msg)
			}
		})
	}
	if version.MaxTags != 20000 {
		t.Fatalf("the test's messages assume MaxTags 20000, not %d", version.MaxTags)
	}
}
