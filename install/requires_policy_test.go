package install

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/policy"
)

// app -> dep -> leaf; the policy requires dep. Removing app must keep dep
// and leaf (dep, which stays, requires leaf).
func TestRemoveKeptDependencyKeepsItsOwnDependency(t *testing.T) {
	requiredRepo(t)
	base := t.TempDir()
	leafSrc := gitSkill(t, base, "leaf", nil)
	depSrc := gitSkill(t, base, "dep", nil, leafSrc)
	appSrc := gitSkill(t, base, "app", nil, depSrc)
	f := newFixture(t)
	in := f.requiredInstaller(t, "version: 1\nrequired:\n  - source: "+depSrc+"\n", "")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{appSrc}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	lock := projectLock(t, f)
	t.Logf("before: dep=%+v leaf=%+v", lock.Skills["dep"], lock.Skills["leaf"])
	if _, err := in.Remove(ctx, RemoveRequest{Names: []string{"app"}}); err != nil {
		t.Fatalf("Remove(app) = %v, want app removed, dep and leaf kept", err)
	}
	lock = projectLock(t, f)
	if lock.Skills["leaf"] == nil || lock.Skills["dep"] == nil {
		t.Errorf("after Remove: dep %+v leaf %+v", lock.Skills["dep"], lock.Skills["leaf"])
	}
}

// # Required skills, rule 10: the policy requires changelog ^1, installed
// as app's dependency. app's new version requires changelog ^2: a plain
// update refuses to move the required skill out of the policy's range,
// naming the policy's entry, and changes nothing; an Add whose
// requirement picks a version outside it is refused the same way.
func TestUpdateKeepsPolicyRequiredInRange(t *testing.T) {
	repo := requiredRepo(t)
	base := t.TempDir()
	app := filepath.Join(base, "app")
	gitRepo(t, app, map[string]string{"SKILL.md": requiringMD("app", repo+"#ref=^1&path=skills/changelog")})
	f := newFixture(t)
	policyText := "version: 1\nrequired:\n  - source: " + repo + "#ref=^1&path=skills/changelog\n"
	in := f.requiredInstaller(t, policyText, "")
	ctx := t.Context()
	if _, err := in.Add(ctx, AddRequest{Sources: []string{"git+file://" + filepath.ToSlash(app) + "#ref=main"}, Agents: agentsOf(t, "claude-code")}); err != nil {
		t.Fatal(err)
	}
	if got := requiredStates(t, in); !slices.Equal(got, []string{"met changelog"}) {
		t.Fatalf("after Add: %q", got)
	}
	lockPath := filepath.Join(f.env.Project, ".agents", lockName)
	before, _ := os.ReadFile(lockPath)
	gitRepo(t, app, map[string]string{"SKILL.md": requiringMD("app", repo+"#ref=^2&path=skills/changelog")})
	_, _, err := in.Update(ctx, UpdateRequest{})
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), policy.FileName+":3") || !strings.Contains(err.Error(), "v2.0.0") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("Update = %v, want %v naming the policy's entry (%s:3) and v2.0.0, nothing changed", err, ErrRequirements, policy.FileName)
	}
	if after, _ := os.ReadFile(lockPath); string(after) != string(before) {
		t.Errorf("Update changed the lock file:\n%s\nwant\n%s", after, before)
	}
	if got := requiredStates(t, in); !slices.Equal(got, []string{"met changelog"}) {
		t.Errorf("after Update: %q", got)
	}

	// Add: another skill requiring changelog ^2 is refused the same way.
	otherSrc := gitSkill(t, base, "other", nil, repo+"#ref=^2&path=skills/changelog")
	f2 := newFixture(t)
	in2 := f2.requiredInstaller(t, policyText, "")
	_, err = in2.Add(ctx, AddRequest{Sources: []string{otherSrc}, Agents: agentsOf(t, "claude-code")})
	if !errors.Is(err, ErrRequirements) || !strings.Contains(err.Error(), policy.FileName+":3") {
		t.Fatalf("Add = %v, want %v naming the policy's entry", err, ErrRequirements)
	}
	if lock := projectLock(t, f2); lock.Skills["changelog"] != nil {
		t.Errorf("Add installed changelog out of the policy's range: %+v", lock.Skills["changelog"])
	}
}
