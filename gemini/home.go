package gemini

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/atomicfile"
)

// policyFile is the policy, in the overlay home, that offers the
// activate_skill tool to a headless run.
const policyFile = "agentadaptor-policy.toml"

// policy allows activate_skill, which Gemini CLI's headless default
// policy removes from the tools.
const policy = `# Written by agentadaptor: offer the activate_skill tool in headless runs.
[[rule]]
toolName = "activate_skill"
decision = "allow"
priority = 100
`

// homeKey names the overlay home of a skill set: its fingerprint, the
// folders it links to, the user's Gemini CLI home and, only when they
// are left out (so the homes of other runs keep their keys), that the
// user's skills are.
func homeKey(rs driver.ResolvedSkills, userHome string, userSkills bool) string {
	if !userSkills {
		return agentdir.Key(folders(), rs, userHome, "without the user's skills")
	}
	return agentdir.Key(folders(), rs, userHome)
}

// home prepares the overlay home for rs and returns it (see "The overlay
// home" in the package doc). Every step is idempotent and safe to race
// with another run preparing the same home. The run holds a lease on the
// home until it calls release.
// userSkills says whether the user's skills are linked beside the run's
// ([Config.WithoutUserSkills]).
func home(ctx context.Context, root string, rs driver.ResolvedSkills, userHome string, userSkills bool) (dir string, release func(), err error) {
	return agentdir.Use(ctx, root, folders(), homeKey(rs, userHome, userSkills), func(l *agentdir.Lease) (string, error) {
		return prepare(ctx, l, rs, userHome, userSkills)
	})
}

// prepare brings the overlay home of the lease l up to date.
func prepare(ctx context.Context, l *agentdir.Lease, rs driver.ResolvedSkills, userHome string, userSkills bool) (string, error) {
	dir := l.Dir()
	if err := agentdir.MakeFolders("Gemini CLI overlay home", dir, filepath.Join(dir, ".gemini"), filepath.Join(dir, ".agents")); err != nil {
		return "", err
	}
	var except []string
	userDir := filepath.Join(userHome, ".agents", "skills")
	if !userSkills {
		except, userDir = []string{"skills"}, ""
	}
	if err := agentdir.MirrorDir(filepath.Join(dir, ".gemini"), filepath.Join(userHome, ".gemini"), except...); err != nil {
		return "", fmt.Errorf("Gemini CLI overlay home %s: %w", dir, err)
	}
	want, err := agentdir.SkillLinks(ctx, rs, userDir)
	if err != nil {
		return "", err
	}
	if err := l.SyncLinks("skills", filepath.Join(dir, ".agents", "skills"), want); err != nil {
		return "", fmt.Errorf("Gemini CLI overlay home %s: %w", dir, err)
	}
	p := filepath.Join(dir, policyFile)
	if got, err := os.ReadFile(p); err != nil || string(got) != policy {
		if err := atomicfile.Write(p, []byte(policy), 0o600); err != nil {
			return "", fmt.Errorf("Gemini CLI overlay home %s: %w", dir, err)
		}
	}
	return dir, nil
}
