package skill_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/skill"
)

// Compile-time checks of the seed's interface claims.
var (
	_ skill.Catalog  = skill.Set(nil)
	_ skill.Provider = skill.Set(nil)
	_ skill.Source   = skill.PathSource{}
	_ skill.Source   = skill.InlineSource{}
	_ skill.Source   = skill.FSSource{}
	_ skill.Source   = skill.ArchiveSource{}
	_ skill.Ref      = skill.Skill{}
	_ error          = (*skill.SkillKeyConflictError)(nil)
	_ error          = (*skill.SkillMaterializationError)(nil)
)

func TestSentinelErrorTexts(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"ErrSkillKeyConflict", skill.ErrSkillKeyConflict, "agentadaptor: skill key defined with conflicting sources"},
		{"ErrSkillMaterializationFailed", skill.ErrSkillMaterializationFailed, "agentadaptor: skill materialization failed"},
		{"ErrSkillSourceMissing", skill.ErrSkillSourceMissing, "agentadaptor: skill source is required"},
		{"ErrSkillKeyMissing", skill.ErrSkillKeyMissing, "agentadaptor: skill key is required"},
		{"ErrSkillNotFound", skill.ErrSkillNotFound, "agentadaptor: skill not found in provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatalf("%s is nil", tt.name)
			}
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("%s.Error() = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
	// The sentinels must be distinct identities.
	all := []error{skill.ErrSkillKeyConflict, skill.ErrSkillMaterializationFailed, skill.ErrSkillSourceMissing, skill.ErrSkillKeyMissing, skill.ErrSkillNotFound}
	for i, a := range all {
		for j, b := range all {
			if i != j && errors.Is(a, b) {
				t.Errorf("errors.Is(%v, %v) = true, want false", a, b)
			}
		}
	}
}

func TestKey(t *testing.T) {
	for _, key := range []string{"code-review", "team/code-review", ""} {
		t.Run(key, func(t *testing.T) {
			ref := skill.Key(key)
			got, ok := ref.(driver.SkillKey)
			if !ok {
				t.Fatalf("Key(%q) = %T, want driver.SkillKey", key, ref)
			}
			if string(got) != key {
				t.Errorf("Key(%q) = %q, want %q", key, got, key)
			}
		})
	}
}

func TestSkillsAsRefs(t *testing.T) {
	meta := map[string]string{"team": "platform"}
	skills := []skill.Skill{
		skill.Inline("zeta", "# Z\n"),
		{Key: "alpha", Source: skill.PathSource{Path: "/a"}, Required: true, Reason: "policy", Metadata: meta},
		skill.Inline("mid", "# M\n"),
	}
	refs := skill.SkillsAsRefs(skills)
	if len(refs) != len(skills) {
		t.Fatalf("len(SkillsAsRefs(%d skills)) = %d, want %d", len(skills), len(refs), len(skills))
	}
	for i, ref := range refs {
		got, ok := ref.(skill.Skill)
		if !ok {
			t.Fatalf("SkillsAsRefs(...)[%d] = %T, want skill.Skill", i, ref)
		}
		if !reflect.DeepEqual(got, skills[i]) {
			t.Errorf("SkillsAsRefs(...)[%d] = %+v, want %+v", i, got, skills[i])
		}
	}
	// Metadata is not deep-cloned: the ref shares the caller's map.
	got := refs[1].(skill.Skill)
	if reflect.ValueOf(got.Metadata).UnsafePointer() != reflect.ValueOf(meta).UnsafePointer() {
		t.Errorf("SkillsAsRefs cloned Metadata; want the same map")
	}
	got.Metadata["added"] = "yes"
	if meta["added"] != "yes" {
		t.Errorf("write through ref Metadata not seen in original map %v", meta)
	}

	if refs := skill.SkillsAsRefs(nil); len(refs) != 0 {
		t.Errorf("SkillsAsRefs(nil) = %v, want empty", refs)
	}
}

func TestDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		wantKey string
	}{
		{"./skills/review", "review"},
		{"./skills/review/", "review"},
		{"skills/review//", "review"},
		{"review", "review"},
		{"/opt/skills/write-proof", "write-proof"},
		{".", filepath.Base(wd)},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got := skill.Dir(tt.path)
			if got.Key != tt.wantKey {
				t.Errorf("Dir(%q).Key = %q, want %q", tt.path, got.Key, tt.wantKey)
			}
			want := skill.PathSource{Path: tt.path}
			if got.Source != want {
				t.Errorf("Dir(%q).Source = %#v, want %#v", tt.path, got.Source, want)
			}
			if p := got.Source.(skill.PathSource).SkillPath(); p != tt.path {
				t.Errorf("Dir(%q).Source.SkillPath() = %q, want %q", tt.path, p, tt.path)
			}
			if got.Required || got.Reason != "" || got.Metadata != nil {
				t.Errorf("Dir(%q) = %+v, want zero Required, Reason and Metadata", tt.path, got)
			}
		})
	}
}

func TestFS(t *testing.T) {
	fsys := fstest.MapFS{
		"SKILL.md":               {Data: []byte("# Root\n")},
		"skills/review/SKILL.md": {Data: []byte("# Review\n")},
	}
	tests := []struct {
		root    string
		wantKey string
	}{
		{"skills/review", "review"},
		{"review", "review"},
		{"", "skill"},
		{".", "skill"},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			got := skill.FS(fsys, tt.root)
			if got.Key != tt.wantKey {
				t.Errorf("FS(fsys, %q).Key = %q, want %q", tt.root, got.Key, tt.wantKey)
			}
			src, ok := got.Source.(skill.FSSource)
			if !ok {
				t.Fatalf("FS(fsys, %q).Source = %T, want skill.FSSource", tt.root, got.Source)
			}
			if src.Root != tt.root {
				t.Errorf("FS(fsys, %q).Source.Root = %q, want %q", tt.root, src.Root, tt.root)
			}
			gotFS, gotRoot := src.SkillFS()
			if !reflect.DeepEqual(gotFS, fs.FS(fsys)) || gotRoot != tt.root {
				t.Errorf("FS(fsys, %q).Source.SkillFS() = (%v, %q), want (fsys, %q)", tt.root, gotFS, gotRoot, tt.root)
			}
		})
	}
}

func TestInline(t *testing.T) {
	const content = "---\nname: greet\n---\n# Greeting\n"
	got := skill.Inline("greet", content)
	if got.Key != "greet" {
		t.Errorf("Inline(%q, ...).Key = %q, want %q", "greet", got.Key, "greet")
	}
	want := skill.InlineSource{SkillMD: content}
	if got.Source != want {
		t.Errorf("Inline(%q, ...).Source = %#v, want %#v", "greet", got.Source, want)
	}
	if md := want.InlineSkillMD(); md != content {
		t.Errorf("InlineSource.InlineSkillMD() = %q, want %q", md, content)
	}
	if got.Required || got.Reason != "" || got.Metadata != nil {
		t.Errorf("Inline(%q, ...) = %+v, want zero Required, Reason and Metadata", "greet", got)
	}
}

func TestPathSourceSkillPath(t *testing.T) {
	for _, p := range []string{"", "rel/dir", "/abs/dir"} {
		if got := (skill.PathSource{Path: p}).SkillPath(); got != p {
			t.Errorf("PathSource{%q}.SkillPath() = %q, want %q", p, got, p)
		}
	}
}

func readOpener(t *testing.T, open skill.Opener) string {
	t.Helper()
	rc, err := open(t.Context())
	if err != nil {
		t.Fatalf("opener() error = %v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read opener: %v", err)
	}
	return string(b)
}

func TestArchive(t *testing.T) {
	data := []byte("archive bytes")
	tests := []struct {
		name            string
		opts            []skill.ArchiveOption
		wantFormat      skill.Format
		wantSubpath     string
		wantFingerprint string
	}{
		{name: "defaults", wantFormat: skill.FormatAuto},
		{
			name:       "format",
			opts:       []skill.ArchiveOption{skill.WithFormat(skill.FormatZip)},
			wantFormat: skill.FormatZip,
		},
		{
			name:        "all options",
			opts:        []skill.ArchiveOption{skill.WithFormat(skill.FormatTarGz), skill.WithSubpath("kits/deploy"), skill.WithFingerprint("sha256:abc")},
			wantFormat:  skill.FormatTarGz,
			wantSubpath: "kits/deploy", wantFingerprint: "sha256:abc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := skill.Archive("deploy-kit", skill.ArchiveBytes(data), tt.opts...)
			if got.Key != "deploy-kit" {
				t.Errorf("Archive(%q).Key = %q, want %q", "deploy-kit", got.Key, "deploy-kit")
			}
			src, ok := got.Source.(skill.ArchiveSource)
			if !ok {
				t.Fatalf("Archive(%q).Source = %T, want skill.ArchiveSource", "deploy-kit", got.Source)
			}
			if src.Format != tt.wantFormat || src.Subpath != tt.wantSubpath || src.Fingerprint != tt.wantFingerprint {
				t.Errorf("Archive(%q).Source = {Format: %q, Subpath: %q, Fingerprint: %q}, want {%q, %q, %q}",
					"deploy-kit", src.Format, src.Subpath, src.Fingerprint, tt.wantFormat, tt.wantSubpath, tt.wantFingerprint)
			}
			if src.Archive == nil {
				t.Fatalf("Archive(%q).Source.Archive = nil", "deploy-kit")
			}
			if b := readOpener(t, src.Archive); b != string(data) {
				t.Errorf("Archive(%q).Source.Archive reads %q, want %q", "deploy-kit", b, data)
			}

			open, format, subpath, fingerprint := src.SkillArchive()
			if format != string(tt.wantFormat) || subpath != tt.wantSubpath || fingerprint != tt.wantFingerprint {
				t.Errorf("SkillArchive() = (_, %q, %q, %q), want (_, %q, %q, %q)", format, subpath, fingerprint, tt.wantFormat, tt.wantSubpath, tt.wantFingerprint)
			}
			if open == nil {
				t.Fatalf("SkillArchive() opener = nil")
			}
			if b := readOpener(t, open); b != string(data) {
				t.Errorf("SkillArchive() opener reads %q, want %q", b, data)
			}
		})
	}
}

func TestSetGetSkills(t *testing.T) {
	set := skill.Set{
		"review": skill.Inline("", "# Review\n"),
		"lint":   skill.Inline("lint", "# Lint\n"),
		"policy": required(skill.Inline("", "# Policy\n"), "tenant"),
		"audit":  required(skill.Inline("audit", "# Audit\n"), "compliance"),
	}
	withKey := func(k string) skill.Skill {
		s := set[k]
		s.Key = k
		return s
	}
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{"nil keys gives required only", nil, []string{"audit", "policy"}},
		{"empty keys gives required only", []string{}, []string{"audit", "policy"}},
		{"requested plus required", []string{"review"}, []string{"audit", "policy", "review"}},
		{"unknown keys absent", []string{"lint", "nope", ""}, []string{"audit", "lint", "policy"}},
		{"requesting a required key", []string{"policy"}, []string{"audit", "policy"}},
		{"duplicates", []string{"lint", "lint"}, []string{"audit", "lint", "policy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := set.GetSkills(t.Context(), tt.keys)
			if err != nil {
				t.Fatalf("GetSkills(%q) error = %v", tt.keys, err)
			}
			want := make(map[string]skill.Skill)
			for _, k := range tt.want {
				want[k] = withKey(k)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("GetSkills(%q) = %v, want %v", tt.keys, got, want)
			}
			for k, s := range got {
				if s.Key != k {
					t.Errorf("GetSkills(%q)[%q].Key = %q, want %q", tt.keys, k, s.Key, k)
				}
			}
		})
	}

	// A Skill's own Key is kept when it is set.
	custom := skill.Set{"alias": skill.Inline("real-key", "# R\n")}
	got, err := custom.GetSkills(t.Context(), []string{"alias"})
	if err != nil {
		t.Fatal(err)
	}
	if got["alias"].Key != "real-key" {
		t.Errorf("GetSkills([alias])[alias].Key = %q, want %q", got["alias"].Key, "real-key")
	}

	// The stored entries are not modified by filling keys.
	if set["review"].Key != "" {
		t.Errorf("GetSkills modified the Set: set[review].Key = %q, want empty", set["review"].Key)
	}

	// The empty and nil Set resolve nothing.
	for _, s := range []skill.Set{nil, {}} {
		got, err := s.GetSkills(t.Context(), []string{"x"})
		if err != nil || len(got) != 0 {
			t.Errorf("Set(%v).GetSkills([x]) = %v, %v, want empty, nil", s, got, err)
		}
	}
}

func TestSetCatalogue(t *testing.T) {
	set := skill.Set{
		"zeta":      skill.Inline("", "# Z\n"),
		"alpha":     skill.Inline("alpha", "# A\n"),
		"team/beta": required(skill.Inline("", "# B\n"), "r"),
		"Gamma":     skill.Inline("", "# G\n"),
	}
	got, err := set.Catalogue(t.Context())
	if err != nil {
		t.Fatalf("Catalogue() error = %v", err)
	}
	var keys []string
	for _, s := range got {
		keys = append(keys, s.Key)
	}
	want := []string{"Gamma", "alpha", "team/beta", "zeta"}
	if !slices.Equal(keys, want) {
		t.Errorf("Catalogue() keys = %q, want %q", keys, want)
	}
	if len(got) == 4 && !got[2].Required {
		t.Errorf("Catalogue()[2].Required = false, want true")
	}

	for _, s := range []skill.Set{nil, {}} {
		got, err := s.Catalogue(t.Context())
		if err != nil || len(got) != 0 {
			t.Errorf("Set(%v).Catalogue() = %v, %v, want empty, nil", s, got, err)
		}
	}
}

func TestSetCancelledContext(t *testing.T) {
	set := skill.Set{"a": required(skill.Inline("a", "# A\n"), "r")}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got, err := set.GetSkills(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("GetSkills(cancelled) = %v, %v, want error context.Canceled", got, err)
	}
	if got, err := set.Catalogue(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Catalogue(cancelled) = %v, %v, want error context.Canceled", got, err)
	}
}

func TestSkillKeyConflictError(t *testing.T) {
	conflict := &skill.SkillKeyConflictError{
		Key:     "code-review",
		Sources: []string{"Dir(./skills/code-review)", "Inline(code-review)"},
		Detail:  "content differs",
	}
	var err error = fmt.Errorf("resolve skills: %w", conflict)
	msg := err.Error()
	for _, want := range []string{"code-review", "Dir(./skills/code-review)", "Inline(code-review)", "content differs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Error() = %q, want it to mention %q", msg, want)
		}
	}
	if !errors.Is(err, skill.ErrSkillKeyConflict) {
		t.Errorf("errors.Is(%v, ErrSkillKeyConflict) = false, want true", err)
	}
	if errors.Is(err, skill.ErrSkillMaterializationFailed) {
		t.Errorf("errors.Is(%v, ErrSkillMaterializationFailed) = true, want false", err)
	}
	var target *skill.SkillKeyConflictError
	if !errors.As(err, &target) {
		t.Fatalf("errors.As(%v, *SkillKeyConflictError) = false, want true", err)
	}
	if target != conflict {
		t.Errorf("errors.As gave %p, want %p", target, conflict)
	}
	if !errors.Is(conflict.Unwrap(), skill.ErrSkillKeyConflict) {
		t.Errorf("Unwrap() = %v, want ErrSkillKeyConflict", conflict.Unwrap())
	}

	// A bare error (no sources, no detail) still names the key.
	bare := &skill.SkillKeyConflictError{Key: "solo"}
	if msg := bare.Error(); !strings.Contains(msg, "solo") {
		t.Errorf("Error() = %q, want it to mention %q", msg, "solo")
	}
}

func TestSkillMaterializationError(t *testing.T) {
	cause := errors.New("disk is full")
	tests := []struct {
		name        string
		err         *skill.SkillMaterializationError
		wantMention []string
	}{
		{
			name:        "runtime name differs",
			err:         &skill.SkillMaterializationError{Key: "Team/Code Review", RuntimeName: "team-code-review", Cause: cause},
			wantMention: []string{"Team/Code Review", "team-code-review", "disk is full"},
		},
		{
			name:        "runtime name equal",
			err:         &skill.SkillMaterializationError{Key: "lint", RuntimeName: "lint", Cause: cause},
			wantMention: []string{"lint", "disk is full"},
		},
		{
			name:        "runtime name unknown",
			err:         &skill.SkillMaterializationError{Key: "lint", Cause: cause},
			wantMention: []string{"lint", "disk is full"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error = fmt.Errorf("run: %w", tt.err)
			msg := err.Error()
			for _, want := range tt.wantMention {
				if !strings.Contains(msg, want) {
					t.Errorf("Error() = %q, want it to mention %q", msg, want)
				}
			}
			if !errors.Is(err, skill.ErrSkillMaterializationFailed) {
				t.Errorf("errors.Is(%v, ErrSkillMaterializationFailed) = false, want true", err)
			}
			if !errors.Is(err, cause) {
				t.Errorf("errors.Is(%v, cause) = false, want true", err)
			}
			if errors.Is(err, skill.ErrSkillKeyConflict) {
				t.Errorf("errors.Is(%v, ErrSkillKeyConflict) = true, want false", err)
			}
			if got := tt.err.Unwrap(); got != cause {
				t.Errorf("Unwrap() = %v, want %v", got, cause)
			}
			var target *skill.SkillMaterializationError
			if !errors.As(err, &target) || target != tt.err {
				t.Errorf("errors.As(%v, *SkillMaterializationError) = %v (%p), want true (%p)", err, target != nil, target, tt.err)
			}
		})
	}

	// A sentinel cause is reachable too.
	err := &skill.SkillMaterializationError{Key: "k", Cause: fmt.Errorf("wrap: %w", skill.ErrSkillSourceMissing)}
	if !errors.Is(err, skill.ErrSkillSourceMissing) {
		t.Errorf("errors.Is(%v, ErrSkillSourceMissing) = false, want true", err)
	}
}

func TestRuntimeNameMetadata(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		meta    string
		want    string
		wantErr bool
	}{
		{name: "override", key: "Team/Code Review", meta: "review", want: "review"},
		{name: "override kept verbatim", key: "x", meta: "My_Skill-2", want: "My_Skill-2"},
		{name: "override with blank key", key: "", meta: "named", want: "named"},
		{name: "override with letters", key: "x", meta: "日本語", want: "日本語"},
		{name: "empty override falls back to key", key: "Code Review", meta: "", want: "code-review"},
		{name: "slash", key: "x", meta: "a/b", wantErr: true},
		{name: "dot dot", key: "x", meta: "..", wantErr: true},
		{name: "dot", key: "x", meta: ".", wantErr: true},
		{name: "hidden", key: "x", meta: ".hidden", wantErr: true},
		{name: "backslash", key: "x", meta: `a\b`, wantErr: true},
		{name: "leading backslash", key: "x", meta: `\evil`, wantErr: true},
		{name: "absolute", key: "x", meta: "/etc", wantErr: true},
		{name: "colon", key: "x", meta: "c:evil", wantErr: true},
		{name: "control character", key: "x", meta: "a\nb", wantErr: true},
		{name: "windows reserved", key: "x", meta: "CON", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := skill.Skill{Key: tt.key, Metadata: map[string]string{skill.MetadataRuntimeName: tt.meta}}
			got, err := skill.RuntimeName(s)
			if tt.wantErr {
				if err == nil {
					t.Errorf("RuntimeName(metadata %q) = %q, want error", tt.meta, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("RuntimeName(key %q, metadata %q) = %q, %v, want %q, nil", tt.key, tt.meta, got, err, tt.want)
			}
		})
	}
}

func TestRuntimeNameDerived(t *testing.T) {
	a63 := strings.Repeat("a", 63)
	tests := []struct {
		key  string
		want string
	}{
		{"review", "review"},
		{"Team/Code Review", "team-code-review"},
		{"CODE_REVIEW", "code-review"},
		{"a---b__c  d", "a-b-c-d"},
		{"  --Hello, World!--  ", "hello-world"},
		{"v2.0", "v2-0"},
		{"Café Menu", "caf-menu"},
		{"日本語 review", "review"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
		{strings.Repeat("ab", 40), strings.Repeat("ab", 32)},
		{a63 + " " + strings.Repeat("b", 10), a63},
		{a63 + "/////" + "c", a63},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := skill.RuntimeName(skill.Skill{Key: tt.key})
			if err != nil || got != tt.want {
				t.Errorf("RuntimeName(%q) = %q, %v, want %q, nil", tt.key, got, err, tt.want)
			}
			if len(got) > 64 {
				t.Errorf("len(RuntimeName(%q)) = %d, want <= 64", tt.key, len(got))
			}
		})
	}

	// Metadata without the runtime-name key does not change derivation.
	s := skill.Skill{Key: "Team/Code Review", Metadata: map[string]string{skill.MetadataDisplayName: "Other"}}
	if got, err := skill.RuntimeName(s); err != nil || got != "team-code-review" {
		t.Errorf("RuntimeName(%q with display name) = %q, %v, want %q, nil", s.Key, got, err, "team-code-review")
	}
}

func TestRuntimeNameHashed(t *testing.T) {
	hashed := func(key string) string {
		sum := sha256.Sum256([]byte(key))
		return "skill-" + hex.EncodeToString(sum[:])[:12]
	}
	keys := []string{"日本語", "中文", "!!!", "—"}
	seen := make(map[string]string)
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			got, err := skill.RuntimeName(skill.Skill{Key: key})
			if want := hashed(key); err != nil || got != want {
				t.Errorf("RuntimeName(%q) = %q, %v, want %q, nil", key, got, err, want)
			}
			again, err := skill.RuntimeName(skill.Skill{Key: key})
			if err != nil || again != got {
				t.Errorf("RuntimeName(%q) second call = %q, %v, want %q, nil", key, again, err, got)
			}
			if prev, ok := seen[got]; ok {
				t.Errorf("RuntimeName(%q) = RuntimeName(%q) = %q, want distinct", key, prev, got)
			}
			seen[got] = key
		})
	}
}

func TestRuntimeNameBlankKey(t *testing.T) {
	for _, key := range []string{"", " ", "\t\n"} {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			for _, meta := range []map[string]string{nil, {skill.MetadataRuntimeName: ""}} {
				got, err := skill.RuntimeName(skill.Skill{Key: key, Metadata: meta})
				if !errors.Is(err, skill.ErrSkillKeyMissing) {
					t.Errorf("RuntimeName(%q, metadata %v) = %q, %v, want error ErrSkillKeyMissing", key, meta, got, err)
				}
			}
		})
	}
}

// required returns s marked Required with reason, as a provider marks a
// skill every run must have.
func required(s skill.Skill, reason string) skill.Skill {
	s.Required, s.Reason = true, reason
	return s
}
