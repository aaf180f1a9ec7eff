package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/agentdir"
	"github.com/agentadaptor/agentadaptor/internal/agents"
	"github.com/agentadaptor/agentadaptor/internal/cache"
	"github.com/agentadaptor/agentadaptor/internal/filelock"
	"github.com/agentadaptor/agentadaptor/internal/process"
	"github.com/agentadaptor/agentadaptor/skill"
)

// skillsDir is the folder of a config folder that holds its skills.
const skillsDir = "skills"

// packageLock is the package-lock.json of a mount: it lists
// @opencode-ai/plugin, which with node_modules/ keeps OpenCode from
// running `npm install` into the folder (rule 1 of "Mounting skills").
var packageLock = []byte(`{
  "name": "agentadaptor-opencode-mount",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "dependencies": {
        "@opencode-ai/plugin": "*"
      }
    }
  }
}
`)

// openCodeRow returns OpenCode's row of the agents table.
func openCodeRow() agents.Row {
	r, _ := agents.Lookup("opencode")
	return r
}

// prepare mounts rs for the run under root and checks them (rules 1 and
// 2 of "Checks"). It returns the agent's environment, naming the mount,
// and the release of the run's lease on it. A run without skills gets
// env as it is.
func prepare(ctx context.Context, root string, rs driver.ResolvedSkills, env []string, workspace string) ([]string, func(), error) {
	if len(rs.Entries) == 0 {
		return env, func() {}, nil
	}
	if dir := process.Getenv(env, "OPENCODE_CONFIG_DIR"); dir != "" {
		return nil, nil, fmt.Errorf("opencode: OPENCODE_CONFIG_DIR is set (%s), and the driver mounts the run's skills there, which would hide that folder; unset it and put its skills in ~/.config/opencode/skills, or run without skills", dir)
	}
	if err := checkRipgrep(env); err != nil {
		return nil, nil, err
	}
	dir, release, err := mount(ctx, root, rs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("opencode: %w", err)
	}
	if err := checkShadows(ctx, rs, filepath.Join(dir, skillsDir), otherSkillsDirs(env, workspace)); err != nil {
		release()
		return nil, nil, err
	}
	return process.MergeEnv(env, []string{"OPENCODE_CONFIG_DIR=" + dir}), release, nil
}

// mount returns rs's mount under root (rule 1 of "Mounting skills") and
// the release of the run's lease on it.
func mount(ctx context.Context, root string, rs driver.ResolvedSkills) (string, func(), error) {
	return agentdir.Use(ctx, root, folders(), agentdir.Key(folders(), rs), func(l *agentdir.Lease) (string, error) {
		return agentdir.Publish(l, func(dir string) bool {
			return mountIntact(ctx, dir, rs)
		}, func(staging string) error {
			if err := os.Mkdir(filepath.Join(staging, "node_modules"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(staging, "package-lock.json"), packageLock, 0o644); err != nil {
				return err
			}
			skills := filepath.Join(staging, skillsDir)
			if err := os.Mkdir(skills, 0o755); err != nil {
				return err
			}
			for _, e := range rs.Entries {
				if err := agentdir.LinkOrCopy(filepath.Join(skills, e.RuntimeName), e.Path); err != nil {
					return fmt.Errorf("mount skill %q: %w", e.Key, err)
				}
			}
			// OpenCode reads the skills, never writes them.
			return os.Chmod(skills, 0o555)
		})
	})
}

// mountIntact reports whether dir is rs's mount as the driver built it,
// with at most the .gitignore OpenCode writes added.
func mountIntact(ctx context.Context, dir string, rs driver.ResolvedSkills) bool {
	names, err := agentdir.ReadNames(dir)
	if err != nil {
		return false
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == ".gitignore" })
	if !slices.Equal(names, []string{"node_modules", "package-lock.json", skillsDir}) {
		return false
	}
	if fi, err := os.Lstat(filepath.Join(dir, "node_modules")); err != nil || !fi.IsDir() {
		return false
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package-lock.json")); err != nil || !bytes.Equal(b, packageLock) {
		return false
	}
	// The skills folder holds one entry per skill, as a mount with no
	// folders above its skills holds them.
	ok, err := agentdir.MountIntact(ctx, filepath.Join(dir, skillsDir), "", rs, skill.ContentDigest)
	return err == nil && ok
}

// xdgDir is the XDG base folder named by the variable name in env, else
// the fallback under the home folder.
func xdgDir(env []string, name, fallback string) string {
	if d := process.Getenv(env, name); d != "" {
		return d
	}
	return filepath.Join(process.HomeDir(env), filepath.FromSlash(fallback))
}

// otherSkillsDirs lists the folders whose skills OpenCode loads besides
// the mount, as its row of the agents table says, in env.
func otherSkillsDirs(env []string, workspace string) []string {
	e := agents.Env{Home: process.HomeDir(env), Getenv: func(name string) string { return process.Getenv(env, name) }}
	return openCodeRow().Dirs(workspace, e.Path)
}

// checkShadows fails when one of dirs holds a skill listed under the name
// of one of rs with other content: OpenCode would load one of the two,
// whichever it read last (rule 1 of "Checks"). mountDir is the mount's
// skills folder.
func checkShadows(ctx context.Context, rs driver.ResolvedSkills, mountDir string, dirs []string) error {
	ours := agents.Mounted(rs, mountDir)
	return openCodeRow().CheckShadows(ctx, ours, dirs)
}

// checkRipgrep fails unless ripgrep is where OpenCode looks for it (rule
// 2 of "Checks").
func checkRipgrep(env []string) error {
	if _, err := process.LookPath("rg", env); err == nil {
		return nil
	}
	own := filepath.Join(xdgDir(env, "XDG_CACHE_HOME", ".cache"), "opencode", "bin", "rg")
	if runtime.GOOS == "windows" {
		own += ".exe"
	}
	if fi, err := os.Stat(own); err == nil && fi.Mode().IsRegular() {
		return nil
	}
	return ripgrepMissing{&driver.ProgramNotFoundError{Command: "rg", Agent: "ripgrep", Field: "opencode.Config.Env",
		Err: fmt.Errorf("ripgrep (rg) is neither on the agent's PATH nor at %s", own)}}
}

// ripgrepMissing is ripgrep not found where OpenCode looks for it: a
// *driver.ProgramNotFoundError whose Field is the setting that puts it on
// the agent's PATH, so that a caller with its own name for that words the
// error itself.
type ripgrepMissing struct{ *driver.ProgramNotFoundError }

func (e ripgrepMissing) Error() string {
	return fmt.Sprintf("opencode: %v: %v; OpenCode's skill tool needs it (without it OpenCode downloads one from github.com); %s or put rg on the PATH of %s",
		e.Err, driver.ErrProgramNotFound, installRipgrep, e.Field)
}

func (e ripgrepMissing) Unwrap() error { return e.ProgramNotFoundError }

// installRipgrep says how ripgrep is installed.
const installRipgrep = "install ripgrep (apt-get install ripgrep, brew install ripgrep, winget install BurntSushi.ripgrep.MSVC)"

// checkSession fails unless OpenCode lists the session id among the
// sessions of workspace (rule 3 of "Checks").
func checkSession(ctx context.Context, prog string, env []string, workspace, id string) error {
	var out bytes.Buffer
	exit, err := process.Run(ctx, process.Command{
		Path: prog, Args: []string{"session", "list", "--format=json"}, Dir: workspace, Env: env,
	}, func(b []byte) error {
		out.Write(b)
		out.WriteByte('\n')
		return nil
	})
	if err != nil {
		return fmt.Errorf("opencode: list the sessions: %w", err)
	}
	if exit.Code != 0 {
		return fmt.Errorf("opencode: list the sessions: exit %d: %s", exit.Code, exit.Stderr)
	}
	var sessions []struct {
		ID        string `json:"id"`
		Directory string `json:"directory"`
	}
	if b := bytes.TrimSpace(out.Bytes()); len(b) > 0 {
		if err := json.Unmarshal(b, &sessions); err != nil {
			return fmt.Errorf("opencode: read the session list: %w", err)
		}
	}
	for _, s := range sessions {
		if s.ID == id {
			if sameDir(s.Directory, workspace) {
				return nil
			}
			return fmt.Errorf("opencode: %w: session %s belongs to %s, not to the workspace %s; resume it with that workspace (OpenCode resumed elsewhere never ends)", driver.ErrResumeRejected, id, s.Directory, workspace)
		}
	}
	return fmt.Errorf("opencode: %w: session %s is not one of OpenCode's sessions of the workspace %s", driver.ErrResumeRejected, id, workspace)
}

// sameDir reports whether a and b name the same folder.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// firstRun makes runs take turns while OpenCode's data folder in env has
// no database yet (rule 5 of "Checks"): it returns at once when it has
// one, and otherwise holds a file lock under root until the returned
// function is called, waiting for it as long as ctx allows.
func firstRun(ctx context.Context, root string, env []string) (unlock func(), err error) {
	data := filepath.Join(xdgDir(env, "XDG_DATA_HOME", ".local/share"), "opencode")
	if _, err := os.Stat(filepath.Join(data, "opencode.db")); err == nil {
		return func() {}, nil
	}
	dir := filepath.Join(root, filepath.FromSlash(folders().Dir))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("opencode: first-run lock: %w", err)
	}
	if err := agentdir.CheckFolder(dir); err != nil {
		return nil, fmt.Errorf("opencode: first-run lock: %w", err)
	}
	e := cache.NewEncoder()
	e.Str(data)
	f, err := os.OpenFile(filepath.Join(dir, "first-run-"+e.Hex()[:16]+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opencode: first-run lock: %w", err)
	}
	if err := filelock.Lock(ctx, f); err != nil {
		f.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("opencode: first-run lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}
