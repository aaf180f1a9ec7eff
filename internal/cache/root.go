package cache

import (
	"fmt"
	"os"
	"path/filepath"
)

// RootEnv names the environment variable that sets the default root
// (package skill's SkillCacheRootEnv, which a test holds equal to it).
const RootEnv = "AGENT_ADAPTOR_SKILL_CACHE_ROOT"

// DefaultRoot returns the root of the cache when none is configured:
// $AGENT_ADAPTOR_SKILL_CACHE_ROOT, else
// os.UserCacheDir()/agent-adaptor/skill-cache, else
// os.TempDir()/agent-adaptor-<uid>/skill-cache (the user id keeps users of
// a shared temp folder apart), made absolute from the working folder
// when it can be. It lives here, below package skill, so that what needs
// the default root without a cache (the drivers' launch code) does not
// link the materializer.
func DefaultRoot() string {
	root := os.Getenv(RootEnv)
	if root == "" {
		if base, err := os.UserCacheDir(); err == nil {
			root = filepath.Join(base, "agent-adaptor", "skill-cache")
		} else {
			root = filepath.Join(os.TempDir(), fmt.Sprintf("agent-adaptor-%d", os.Getuid()), "skill-cache")
		}
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}
