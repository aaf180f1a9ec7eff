package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocitest"

	"github.com/opencontainers/go-digest"

	"github.com/agentadaptor/agentadaptor/internal/testkit/ocireg"
	"github.com/agentadaptor/agentadaptor/internal/testkit/sigstoretest"
	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// ociRegistry starts a registry with referrers on loopback, closed at the
// end of the test, and returns it and its host.
func ociRegistry(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	return ocireg.Start(t, true)
}

// pushSkill pushes a skill named name with body to ref (a tag) and
// returns the reference pinned to its manifest digest.
func pushSkill(t *testing.T, ref, name, body string) string {
	t.Helper()
	src := t.TempDir()
	writeSkill(t, src, name, "---\nname: "+name+"\ndescription: Does "+name+".\n---\n"+body)
	d, err := oci.Push(t.Context(), filepath.Join(src, name), ref)
	if err != nil {
		t.Fatalf("oci.Push(%s): %v", ref, err)
	}
	return ref[:strings.LastIndex(ref, ":")] + "@" + d // ref ends in :TAG
}

// lockJSON reads the project's lock file.
func lockJSON(t *testing.T, project string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	if err != nil {
		t.Fatal(err)
	}
	var lock map[string]any
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatalf("the lock file: %v\n%s", err, data)
	}
	return lock
}

// lockSkill is the lock file's entry of skill name.
func lockSkill(t *testing.T, project, name string) map[string]any {
	t.Helper()
	skills, _ := lockJSON(t, project)["skills"].(map[string]any)
	e, _ := skills[name].(map[string]any)
	if e == nil {
		t.Fatalf("the lock file records no skill %s", name)
	}
	return e
}

// TestAcceptSignerSameContent checks that accepting a new signer of
// content already installed (the manifest signed again by another key,
// the digest unchanged) records the new signer and says so, rather than
// "Nothing to do"; --json carries it on the canonical copy's change.
func TestAcceptSignerSameContent(t *testing.T) {
	project := trustProject(t, "")
	_, host := ociRegistry(t)
	pinned := pushSkill(t, "oci://"+host+"/team/review:v1", "review", "Review the change.\n")
	k1, k2 := ocitest.NewKey(t), ocitest.NewKey(t)
	if _, err := oci.Sign(t.Context(), pinned, signature.KeySigner{Key: k1.Private}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "add", pinned, "--key", k1.File, "-a", "claude-code"); code != 0 {
		t.Fatalf("add --key = %d; stderr:\n%s", code, stderr)
	}
	if _, err := oci.Sign(t.Context(), pinned, signature.KeySigner{Key: k2.Private}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "add", pinned, "--key", k2.File, "-a", "claude-code")
	if code != 1 || !strings.Contains(stderr, "--accept-signer '"+k2.ID+"'") {
		t.Fatalf("add --key NEW of content signed again = %d, want 1 with the hint; stderr:\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "add", pinned, "--key", k2.File, "--accept-signer", k2.ID, "-a", "claude-code")
	want := "signer of review changed from key " + k1.ID + " to key " + k2.ID + " (accepted)"
	if code != 0 || strings.Contains(stdout, "Nothing to do") || !strings.Contains(stdout, want) {
		t.Fatalf("add --accept-signer of the same content = %d\nstdout:\n%s\nstderr:\n%s\nwant 0 and %q", code, stdout, stderr, want)
	}
	signer, _ := lockSkill(t, project, "review")["signer"].(map[string]any)
	if signer["key"] != k2.ID {
		t.Errorf("the lock file records signer %v, want %s", signer, k2.ID)
	}
	// Accepting again changes nothing and says so.
	code, stdout, _ = runCLI(t, "add", pinned, "--key", k2.File, "--accept-signer", k2.ID, "-a", "claude-code")
	if code != 0 || !strings.Contains(stdout, "Nothing to do") {
		t.Errorf("add again = %d, stdout:\n%s\nwant Nothing to do", code, stdout)
	}

	// The same through sync (a signer recorded, another one accepted) and
	// with --json.
	k3 := ocitest.NewKey(t)
	if _, err := oci.Sign(t.Context(), pinned, signature.KeySigner{Key: k3.Private}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, "sync", "--key", k3.File, "--accept-signer", k3.ID, "--json")
	if code != 0 {
		t.Fatalf("sync --accept-signer = %d; stderr:\n%s", code, stderr)
	}
	var changes []map[string]any
	if err := json.Unmarshal([]byte(stdout), &changes); err != nil {
		t.Fatalf("sync --json: %v\n%s", err, stdout)
	}
	found := false
	for _, c := range changes {
		if c["skill"] == "review" && c["agent"] == "" {
			found = c["signer"] == "key "+k3.ID && c["previous_signer"] == "key "+k2.ID
		}
	}
	if !found {
		t.Errorf("sync --json = %s, want the canonical copy's change with signer key %s and previous_signer key %s", stdout, k3.ID, k2.ID)
	}
	if signer, _ := lockSkill(t, project, "review")["signer"].(map[string]any); signer["key"] != k3.ID {
		t.Errorf("after sync the lock file records signer %v, want %s", signer, k3.ID)
	}

	// And through update, whose source's tag names the same manifest.
	k4 := ocitest.NewKey(t)
	if _, err := oci.Sign(t.Context(), pinned, signature.KeySigner{Key: k4.Private}); err != nil {
		t.Fatal(err)
	}
	tagged := strings.Replace(pinned, "@"+pinned[strings.LastIndex(pinned, "@")+1:], ":v1", 1)
	if code, _, stderr := runCLI(t, "remove", "review"); code != 0 {
		t.Fatalf("remove = %d; stderr:\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "add", tagged, "--key", k3.File, "-a", "claude-code"); code != 0 {
		t.Fatalf("add %s = %d; stderr:\n%s", tagged, code, stderr)
	}
	code, stdout, stderr = runCLI(t, "update", "--key", k4.File, "--accept-signer", k4.ID)
	want = "signer of review changed from key " + k3.ID + " to key " + k4.ID + " (accepted)"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("update --accept-signer of the same content = %d\nstdout:\n%s\nstderr:\n%s\nwant %q", code, stdout, stderr, want)
	}
	if signer, _ := lockSkill(t, project, "review")["signer"].(map[string]any); signer["key"] != k4.ID {
		t.Errorf("after update the lock file records signer %v, want %s", signer, k4.ID)
	}
}

// allowHint returns the --allow-risk flags the refusal on stderr names.
func allowHint(t *testing.T, stderr string) []string {
	t.Helper()
	_, hint, ok := strings.Cut(stderr, "run it again with ")
	if !ok {
		t.Fatalf("no --allow-risk hint in:\n%s", stderr)
	}
	hint, _, _ = strings.Cut(hint, "\n")
	var allow []string
	for _, f := range strings.Fields(hint) {
		if f != "--allow-risk" {
			allow = append(allow, "--allow-risk", f)
		}
	}
	return allow
}

// TestAllowRiskRecorded checks that add --allow-risk records the rules it
// allowed with the skill's content digest: verify and sync --frozen pass
// without the flag and show the record (verify's output, list --json);
// a sync or add of other content with the same finding is refused
// again; content without the finding drops the record.
func TestAllowRiskRecorded(t *testing.T) {
	project := trustProject(t, "")
	src := t.TempDir()
	writeSkill(t, src, "evil", evilSkill)
	code, _, stderr := runCLI(t, "add", src, "-a", "claude-code")
	if code != 1 {
		t.Fatalf("add of a flagged skill = %d, want 1; stderr:\n%s", code, stderr)
	}
	allow := allowHint(t, stderr)
	if code, _, stderr := runCLI(t, append([]string{"add", src, "-a", "claude-code"}, allow...)...); code != 0 {
		t.Fatalf("add %q = %d; stderr:\n%s", allow, code, stderr)
	}
	entry := lockSkill(t, project, "evil")
	rec, _ := entry["allowed_risks"].(map[string]any)
	rules, _ := rec["rules"].([]any)
	if rec == nil || rec["digest"] != entry["digest"] || len(rules) != len(allow)/2 {
		t.Fatalf("the lock file's entry %v, want allowed_risks with the rules %q and the digest %v", entry, allow, entry["digest"])
	}
	rule := rules[0].(string)

	code, stdout, stderr := runCLI(t, "verify")
	if code != 0 || !strings.Contains(stdout, "evil") || !strings.Contains(stdout, rule) || !strings.Contains(stdout, "allow") {
		t.Errorf("verify after add --allow-risk = %d\nstdout:\n%s\nstderr:\n%s\nwant 0, naming the allowed rule %s of evil", code, stdout, stderr, rule)
	}
	code, stdout, _ = runCLI(t, "list", "--json")
	var statuses []map[string]any
	json.Unmarshal([]byte(stdout), &statuses)
	shown := false
	for _, s := range statuses {
		if r, _ := s["allowed_risks"].(map[string]any); s["skill"] == "evil" && r != nil && r["digest"] == entry["digest"] {
			shown = true
		}
	}
	if code != 0 || !shown {
		t.Errorf("list --json = %d\n%s\nwant evil with its allowed_risks", code, stdout)
	}
	os.RemoveAll(filepath.Join(project, ".agents", "skills", "evil"))
	// A sync that puts the skill back says that the lock file's record
	// let it through: a cloned project's lock is someone else's decision.
	if code, _, stderr := runCLI(t, "sync", "--frozen"); code != 0 || !strings.Contains(stderr, "allowed   evil: audit rules "+rule) {
		t.Errorf("sync --frozen after add --allow-risk = %d; stderr:\n%s\nwant 0, naming the allowed rule %s of evil", code, stderr, rule)
	}
	if code, _, stderr := runCLI(t, "sync"); code != 0 || strings.Contains(stderr, "allowed ") {
		t.Errorf("sync of unchanged content = %d; stderr:\n%s\nwant 0, and no allowance named for a skill it did not put in place", code, stderr)
	}
	if r := lockSkill(t, project, "evil")["allowed_risks"]; r == nil {
		t.Errorf("sync of unchanged content dropped the record")
	}

	// An installed copy edited since: the record is not for its content.
	installed := filepath.Join(project, ".agents", "skills", "evil", "SKILL.md")
	before, _ := os.ReadFile(installed)
	os.WriteFile(installed, append(before, "More.\n"...), 0o644)
	code, stdout, stderr = runCLI(t, "verify", "--json")
	if code != 1 || !strings.Contains(stderr, "refused  evil") || !strings.Contains(stderr, rule) {
		t.Errorf("verify --json of an edited allowed skill = %d\nstdout:\n%s\nstderr:\n%s\nwant 1 and the refusal", code, stdout, stderr)
	}
	os.WriteFile(installed, before, 0o644)

	// Other content with the same finding is refused again.
	lockBefore, _ := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock"))
	writeSkill(t, src, "evil", evilSkill+"\nAlso this.\n")
	if code, _, stderr := runCLI(t, "sync"); code != 1 || !strings.Contains(stderr, rule) || !strings.Contains(stderr, "--allow-risk "+rule) {
		t.Errorf("sync of changed content with the same finding = %d, want 1 naming %s and the --allow-risk hint; stderr:\n%s", code, rule, stderr)
	}
	if code, _, stderr := runCLI(t, "update"); code != 1 || !strings.Contains(stderr, "--allow-risk "+rule) {
		t.Errorf("update of changed content with the same finding = %d, want 1 with the --allow-risk hint of %s; stderr:\n%s", code, rule, stderr)
	}
	if code, _, stderr := runCLI(t, "add", src, "-a", "claude-code"); code != 1 || !strings.Contains(stderr, "refused by the trust checks: skill evil") || !strings.Contains(stderr, "--allow-risk "+rule) {
		t.Errorf("add of changed content with the same finding = %d, want 1, evil refused; stderr:\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(project, ".agents", "agentskills.lock")); string(after) != string(lockBefore) {
		t.Errorf("a refused sync or add changed the lock file:\n%s\nwas\n%s", after, lockBefore)
	}
	// Content without the finding drops the record.
	writeSkill(t, src, "evil", "---\nname: evil\ndescription: Formats code.\n---\nFormat the code.\n")
	if code, _, stderr := runCLI(t, "sync"); code != 0 {
		t.Fatalf("sync of clean content = %d; stderr:\n%s", code, stderr)
	}
	if r, ok := lockSkill(t, project, "evil")["allowed_risks"]; ok {
		t.Errorf("the lock file keeps allowed_risks %v for content without the finding", r)
	}
}

// TestKeylessPrivateRootOffline checks that the lock file records the
// trusted root that verified a keyless signer (its digest, and the file's
// path relative to the project), and that sync --frozen and verify use
// that file, with the registry gone and Sigstore's public root out of
// reach (its TUF cache folder is a file, so a fetch of it fails at once);
// a root file that changed or is gone fails them, saying what to do.
func TestKeylessPrivateRootOffline(t *testing.T) {
	const (
		identity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/tags/v1"
		issuer   = "https://token.actions.githubusercontent.com"
	)
	project := trustProject(t, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // os.UserCacheDir on Linux (trustProject sets HOME, macOS's)
	t.Setenv("LocalAppData", t.TempDir())   // and Windows
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	tuf := filepath.Join(cacheDir, "agent-adaptor", "sigstore-tuf")
	os.MkdirAll(filepath.Dir(tuf), 0o755)
	if err := os.WriteFile(tuf, []byte("no public root here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, host := ociRegistry(t)
	pinned := pushSkill(t, "oci://"+host+"/team/review:v1", "review", "Review the change.\n")
	sg := sigstoretest.New(t)
	sigstoretest.Attach(t, pinned, sg.Bundle(t, identity, issuer, digest.Digest(pinned[strings.LastIndex(pinned, "@")+1:])))
	rootFile := filepath.Join(project, "sigstore", "trusted_root.json")
	os.MkdirAll(filepath.Dir(rootFile), 0o755)
	rootJSON := sg.TrustedRoot(t)
	if err := os.WriteFile(rootFile, rootJSON, 0o644); err != nil {
		t.Fatal(err)
	}

	code, _, stderr := runCLI(t, "add", pinned, "--certificate-identity", identity, "--certificate-oidc-issuer", issuer, "--trusted-root", filepath.Join("sigstore", "trusted_root.json"), "-a", "claude-code")
	if code != 0 {
		t.Fatalf("add with a private trusted root = %d; stderr:\n%s", code, stderr)
	}
	signer, _ := lockSkill(t, project, "review")["signer"].(map[string]any)
	root, _ := signer["trusted_root"].(map[string]any)
	if signer["identity"] != identity || root["path"] != "sigstore/trusted_root.json" || root["digest"] != digest.FromBytes(rootJSON).String() {
		t.Fatalf("the lock file records signer %v; want the identity and trusted_root {path sigstore/trusted_root.json, digest %s}", signer, digest.FromBytes(rootJSON))
	}

	srv.Close()
	os.RemoveAll(filepath.Join(project, ".agents", "skills", "review"))
	if code, _, stderr := runCLI(t, "sync", "--frozen"); code != 0 {
		t.Errorf("sync --frozen offline = %d; stderr:\n%s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "verify"); code != 0 || !strings.Contains(stdout, "match the lock file") {
		t.Errorf("verify offline = %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if fi, err := os.Stat(tuf); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the public root's TUF cache was touched (%v)", err)
	}

	// The root file changed, then gone: refused, saying what to do.
	os.WriteFile(rootFile, append(rootJSON, ' '), 0o644)
	code, _, stderr = runCLI(t, "verify")
	if code != 1 || !strings.Contains(stderr, "sigstore/trusted_root.json") || !strings.Contains(stderr, "--trusted-root") {
		t.Errorf("verify with a changed trusted root = %d, want 1 naming the file and --trusted-root; stderr:\n%s", code, stderr)
	}
	os.Remove(rootFile)
	os.RemoveAll(filepath.Join(project, ".agents", "skills", "review"))
	code, _, stderr = runCLI(t, "sync", "--frozen")
	if code != 1 || !strings.Contains(stderr, "sigstore/trusted_root.json") || !strings.Contains(stderr, "--trusted-root") {
		t.Errorf("sync --frozen with the trusted root gone = %d, want 1 naming the file and --trusted-root; stderr:\n%s", code, stderr)
	}
}
