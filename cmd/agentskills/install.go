package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/sourceloc"
	"github.com/agentadaptor/agentadaptor/source"
)

// scopeFlags are the flags every install command shares.
type scopeFlags struct {
	global bool
	agents []string
	all    bool
	yes    bool // accepted and ignored: nothing asks
	quiet  bool
	json   bool
	// verbose prints every skill's warning (registerVerbose).
	verbose bool
}

// scopeOptions are the options of the commands that take only the scope flags
// (list, verify).
type scopeOptions struct {
	io    *streams
	scope scopeFlags
}

func (f *scopeFlags) register(cmd *cobra.Command, agentHelp string) {
	f.registerGlobal(cmd)
	cmd.Flags().StringSliceVarP(&f.agents, "agent", "a", nil, agentHelp+"; '*' for every agent")
}

// registerAll adds --all, every known agent (as --agent '*').
func (f *scopeFlags) registerAll(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.all, "all", false, "install for every known agent (as --agent '*')")
}

// registerYes adds -y/--yes, which users of the npm skills tool type to
// skip its questions. agentskills never asks, so it changes nothing.
func (f *scopeFlags) registerYes(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "accepted for users of the npm skills tool; agentskills never asks")
}

// registerGlobal adds --global, which every install command takes.
func (f *scopeFlags) registerGlobal(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.global, "global", "g", false, "use the user's folders (home) instead of the project's (current folder)")
}

// registerOutput adds --quiet and --json for commands that change things.
func (f *scopeFlags) registerOutput(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "print nothing on success")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the changes as JSON")
}

// registerVerbose adds --verbose, for commands that warn of each skill
// they put in place that validate rejects.
func (f *scopeFlags) registerVerbose(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.verbose, "verbose", false, "warn of every skill on a line of its own (default: a warning that 3 or more skills share is one line)")
}

// installer returns the installer for the chosen scope, with extra
// options.
func (f *scopeFlags) installer(extra ...install.Option) (*install.Installer, error) {
	env, err := install.CurrentEnv()
	if err != nil {
		return nil, err
	}
	scope := install.Project
	if f.global {
		scope = install.User
	}
	opts := []install.Option{install.WithScope(scope), install.WithSettingNames(settingFlags)}
	if w := f.progress(os.Stderr, isTerminal(os.Stderr)); w != nil {
		opts = append(opts, install.WithProgress(w))
	}
	opts = append(opts, extra...)
	return install.New(env, opts...), nil
}

// progress returns where an installer reports its progress (downloads,
// an add's work): stderr when it is a terminal and neither --quiet nor
// --json is given, else nil: nothing on a pipe or in a file.
func (f *scopeFlags) progress(stderr io.Writer, terminal bool) io.Writer {
	if f.quiet || f.json || !terminal {
		return nil
	}
	return stderr
}

// selectedInstaller returns the agents selected, as [scopeFlags.selected]
// does, and the installer for the chosen scope.
func (f *scopeFlags) selectedInstaller(extra ...install.Option) ([]install.Agent, *install.Installer, error) {
	agents, err := f.selected()
	if err != nil {
		return nil, nil, err
	}
	in, err := f.installer(extra...)
	return agents, in, err
}

// policyInstaller is selectedInstaller with the policy (the user's and,
// in a project, the project's), for the commands that do not check trust
// but keep or mark the skills it requires (remove, list: readOnly, it
// records no pin of a file the policy extends).
func (f *scopeFlags) policyInstaller(ctx context.Context, readOnly bool) ([]install.Agent, *install.Installer, error) {
	none := trustFlags{readOnly: readOnly}
	trust, err := none.option(ctx, f.global, 0)
	if err != nil {
		return nil, nil, err
	}
	return f.selectedInstaller(trust)
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// selected returns the agents named with --agent ('*': every agent) or
// chosen with --all; none means nil. Every unknown ID is reported at once,
// each with the nearest known one.
func (f *scopeFlags) selected() ([]install.Agent, error) {
	var ids []string
	for _, id := range f.agents {
		for _, part := range strings.Split(id, ",") {
			if part = strings.TrimSpace(part); part != "" {
				ids = append(ids, part)
			}
		}
	}
	if f.all {
		if len(ids) > 0 {
			return nil, usageErrorf("--all and --agent cannot be used together (--all is --agent '*')")
		}
		ids = []string{install.AllAgents}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	agents, err := install.LookupAgents(ids...)
	if err != nil {
		return nil, inputError{fmt.Errorf("%w (see 'agentskills agents')", err)}
	}
	return agents, nil
}

// inputError is a request the tool refuses because of its input (a source
// that is not a skill, a name already taken): exit code 2, one line.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// installErr classifies an error of package install by the exit rule
// every command follows: 130 interrupted; 1 an operation or a check
// failed (an integrity failure, also of a skill skipped while the others
// were installed; a conflict, a modified skill, drift, an unavailable
// source, an unsafe folder, nothing recorded, any I/O error); 2 bad
// input only (a source that cannot be installed as given, an invalid
// lock file, a name that is not installed).
func installErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, install.ErrInterrupted):
		return interruptedError{err}
	case errors.Is(err, source.ErrIntegrity):
		return err // before ErrInvalidSource, which a skipped skill's also wraps
	case errors.Is(err, install.ErrConflict), errors.Is(err, install.ErrModified), errors.Is(err, install.ErrDrift),
		errors.Is(err, install.ErrSourceUnavailable), errors.Is(err, install.ErrUnsafeFolder), errors.Is(err, install.ErrNothingRecorded):
		return err
	case errors.Is(err, install.ErrInvalidSource), errors.Is(err, install.ErrInvalidLock), errors.Is(err, install.ErrNotInstalled):
		return inputError{err}
	}
	return err
}

// interruptedError is an install command stopped by Ctrl-C: exit 130. Its
// message says what was done and how to finish.
type interruptedError struct{ err error }

func (e interruptedError) Error() string   { return e.err.Error() }
func (e interruptedError) Unwrap() []error { return []error{e.err, errInterrupted} }

// flagHint says which flag helps with err, where the library's message
// can speak only of the library: "" when none does.
func flagHint(err error) string {
	var h hinted
	switch {
	case errors.As(err, &h): // the command's own hint comes first
		return h.hint
	case errors.Is(err, install.ErrModified):
		return "--force replaces it, after moving it to a backup"
	case errors.Is(err, install.ErrSpecification):
		return "'agentskills add --lenient' installs a skill that breaks only the specification, with a warning"
	case errors.Is(err, install.ErrRequired):
		return "--force removes it anyway; 'agentskills verify' then reports the requirement as not installed"
	}
	return ""
}

// hinted is an error with the flag that helps with it, which flagHint
// reports.
type hinted struct {
	err  error
	hint string
}

func (e hinted) Error() string { return e.err.Error() }
func (e hinted) Unwrap() error { return e.err }

// printChanges prints what a command did, also when it failed midway
// (then err is that failure, returned classified).
func printChanges(s *streams, changes []install.Change, f *scopeFlags, err error) error {
	if !f.global && errors.Is(err, install.ErrUnsafeFolder) {
		err = hinted{err, "--global installs into the user's folders instead"}
	}
	if f.json {
		// A failure is the error line (jsonError); the changes made
		// before it, if any, come first.
		if err != nil && len(changes) == 0 {
			return installErr(err)
		}
		if changes == nil {
			changes = []install.Change{}
		}
		if werr := writeJSON(s, changes); werr != nil && err == nil {
			return werr
		}
		return installErr(err)
	}
	for _, c := range changes {
		if c.Action == install.ActionSkipped {
			hint := ""
			if c.Spec != "" {
				hint = " (--lenient installs it)"
			}
			fmt.Fprintf(s.err, "skipped   %s (%s): %s%s\n", c.Skill, sourceLabel(c.Source, c.Path), c.Reason, hint)
		}
	}
	for _, c := range changes {
		// An install's change names the skills that required it too; only
		// a removal leaves a requirement unanswered.
		if c.Action == install.ActionRemoved && len(c.RequiredBy) > 0 {
			verb := map[bool]string{false: "requires", true: "require"}[len(c.RequiredBy) > 1]
			fmt.Fprintf(s.err, "warning: removed %s, which %s %s; 'agentskills verify' reports it until it is added again\n", c.Skill, strings.Join(c.RequiredBy, ", "), verb)
		}
	}
	if f.quiet && err == nil {
		return nil
	}
	if !install.Changed(changes) {
		if err == nil {
			fmt.Fprintln(s.out, "Nothing to do: everything is already as requested.")
		}
		return installErr(err)
	}
	out := bufio.NewWriterSize(s.out, 64<<10) // a line a change: one write for many
	defer out.Flush()
	short := shortPaths()
	for _, c := range changes {
		if c.PreviousPin != c.Pin {
			fmt.Fprintf(out, "%-9s %s: %s -> %s\n", "pinned", c.Skill, shortPin(c.PreviousPin), shortPin(c.Pin))
		}
		switch {
		case c.Signer == c.PreviousSigner:
		case c.PreviousSigner == "":
			fmt.Fprintf(out, "signer of %s recorded: %s\n", c.Skill, c.Signer)
		case c.Signer == "":
			fmt.Fprintf(out, "signer of %s no longer recorded (was %s)\n", c.Skill, c.PreviousSigner)
		default:
			fmt.Fprintf(out, "signer of %s changed from %s to %s (accepted)\n", c.Skill, c.PreviousSigner, c.Signer)
		}
		if c.Action == install.ActionUnchanged || c.Action == install.ActionSkipped {
			continue
		}
		what := "canonical copy"
		switch {
		case c.Agent != "" && c.Kind == install.KindLink:
			what = c.Agent + ", link"
		case c.Agent != "" && c.Kind == install.KindCopy:
			what = c.Agent + ", copy"
		case c.Agent != "" && c.Kind == install.KindCanonical:
			what = c.Agent + ", reads the canonical copy"
		}
		if len(c.RequiredBy) > 0 {
			what += ", required by " + strings.Join(c.RequiredBy, ", ")
		}
		backup := ""
		if c.Backup != "" {
			backup = " (what was there is now in " + short(c.Backup) + ")"
		}
		if c.Reason != "" {
			backup += " (" + c.Reason + ")"
		}
		fmt.Fprintf(out, "%-9s %s (%s): %s%s\n", c.Action, c.Skill, what, short(c.Path), backup)
	}
	return installErr(err)
}

// shortPin shortens a commit or a digest as git and registries show them;
// "" (no pin before) is "none".
func shortPin(pin string) string {
	if pin == "" {
		return "none"
	}
	return sourceloc.ShortPin(pin)
}

// sourceLabel names a folder inside a source for messages.
func sourceLabel(source, path string) string {
	if path == "." || path == "" {
		return source
	}
	return source + ": " + path
}

// shortPath shows a path relative to the current folder when it is inside
// it; JSON output keeps absolute paths.
func shortPath(p string) string { return shortPaths()(p) }

// shortPaths is shortPath for many paths: it asks for the current folder
// once.
func shortPaths() func(p string) string {
	wd, err := os.Getwd()
	return func(p string) string {
		if err != nil {
			return p
		}
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
		return p
	}
}

func writeJSON(s *streams, v any) error {
	enc := json.NewEncoder(s.data)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type addOptions struct {
	io      *streams
	scope   scopeFlags
	copy    bool
	skills  []string
	force   bool
	strict  bool
	list    bool
	timeout time.Duration
	trust   trustFlags
	plugins []string
	lenient bool
	// noRequires installs only the skills named, not what they require.
	noRequires bool
}

// addLong is the help of add.
const addLong = `Add installs the skills of each SOURCE: a folder, an archive (zip, tar,
tar.gz) or the http(s) URL of one, optionally pinned with #sha256=HEX; a
GitHub repository, OWNER/REPO[/PATH][@REF] or
https://github.com/OWNER/REPO[/tree/REF/PATH] (a token from GITHUB_TOKEN or
GH_TOKEN, GITHUB_API_URL for GitHub Enterprise); any git repository,
git+https://HOST/REPO[#ref=REF&path=PATH] (also git+ssh://, git+file://),
through the system git and its credentials; a repository on another host by
its web address: GitHub Enterprise Server's
https://HOST/OWNER/REPO/tree/REF[/PATH] (https://HOST/OWNER/REPO with
GH_HOST=HOST) through its API, with a token from GH_ENTERPRISE_TOKEN or
GITHUB_ENTERPRISE_TOKEN sent only to the host GH_HOST names, and, through git, GitLab's
https://HOST/GROUP/.../REPO/-/tree/REF[/PATH], Gitea's and Codeberg's
https://HOST/OWNER/REPO/src/branch/REF[/PATH], Bitbucket's
https://bitbucket.org/OWNER/REPO/src/REF[/PATH], a repository's page on
gitlab.com, codeberg.org or bitbucket.org, and https://HOST/PATH.git (any
other http(s) URL, or one ending in .zip, .skill, .tar, .tgz or .tar.gz, is an
archive); or an OCI artifact or image (a multi-platform index too,
ToolHive's skills among them, when its platforms share one layer),
oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:DIGEST (credentials from the
Docker configuration). A published source is pinned: the lock file records
the commit or manifest digest its reference named, sync installs that pin,
never the moving branch or tag, and needs no network while the skill cache
holds the content; add again moves the pin and prints the old and new one.
Content other than the lock file records for the same pin is refused.
A reference may be a version range, picked from the repository's or the
registry's tags: OWNER/REPO@^1.2, OWNER/REPO@~1.2, 'OWNER/REPO@>=1.0 <2',
git+https://HOST/REPO#ref=^1.2, oci://HOST/REPO:^1.2 (^ ~ * < > = | or a
space make a range; v1.2.3 names that tag and 1.x a branch: write ^1). It
installs the highest version the range admits (pre-releases only when the
range names one), the lock file keeps the range and the pin, and add again
moves the pin within the range.
A file or folder of the name given wins over a GitHub repository, and
OWNER/REPO whose OWNER is a file or folder here (skills/good-onee beside
skills/good-one) is refused as a mistyped path (exit 2), never looked up;
github:OWNER/REPO[/PATH][@REF] always means GitHub, ./PATH always a path.
A SKILL.md file stands for its skill's folder. It finds the skills where repositories keep them: a SKILL.md at the root, in
any folder up to five levels down (not in .git, node_modules and the like),
in skills/.curated, skills/.system, .claude/skills and the other agents'
folders, and where a Claude plugin manifest (.claude-plugin/marketplace.json,
plugin.json) says. A marketplace installs the plugins it lists: a plugin
folder it leaves out is not installed, and --plugin NAME (repeatable)
installs only those plugins' skills. A SKILL.md inside another skill's
folder is a file of that skill, installed with it; --skill with its name
or folder installs it alone. --list shows what a source holds (with each
skill's plugin), installing nothing.

A skill that cannot be installed (its SKILL.md has no usable name or
description, it holds a link out of the source, or another skill found has
its name and other content) is skipped, naming its folder and the reason on
stderr, and the others are installed; with --strict any such skill fails
the command and nothing changes. A skill that breaks only the Agent Skills
specification, which agents load anyway (a description over 1,024
characters, a compatibility over 500), is skipped too, unless --lenient:
then it is installed with a warning, and the lock file records it so that
sync installs it again. Skills are read as agents load them: one
that 'agentskills validate' rejects but agents load (an unknown key, no
name, an unquoted "key: text: more") is installed with a warning on stderr
naming each problem. In a folder, a link to a file inside the
source (a SKILL.md shared between skills) is installed as that file; a
mirror of a skill for another agent (its SKILL.md a link to the skill's, or
a copy) is the same skill, installed once.

Each skill gets one canonical copy under .agents/skills/<name> and, in each
agent's folder, a relative link to it (--copy: a full copy). Everything made
is recorded in .agents/agentskills.lock; a name already taken by something
this tool did not make is an error, and nothing changes. Without --agent it
installs for the agents the lock file records, else for those detected on
this machine (their folders exist), else for claude-code and codex, and
says which and why on stderr; --agent '*' or --all installs for every
known agent ('agentskills agents' lists them). An agent whose folder holds
the source itself (OpenClaw reads skills/) already has the skill there and
gets nothing. It never asks anything: -y is accepted, for users of the npm
skills tool, and changes nothing. Running it again changes nothing and says
so.

Requirements: a skill may name the skills it needs in its SKILL.md,
metadata: {requires: "github:acme/skills/changelog@^1
oci://ghcr.io/acme/semver:^2"} (sources as add takes them, separated by
spaces; a path is relative to the skill's folder, and only a skill read from
a folder here may name one), and an OCI artifact in ToolHive's
dev.toolhive.skills.requires annotation. Add installs them too, and what
they require, each resolved and pinned as a source given here, checked by
the policy and the audit as any (a refusal names the chain that asked for
it: "app -> release -> github:evil/x: ..."), and recorded in the lock file
with the skills that require it; the output says "required by NAME". One
version of a skill is installed: two requirements of one skill name from
two sources, or with version ranges no version both admit, and a cycle
(a -> b -> a) fail the command, naming both chains or the cycle, and
nothing changes. --no-requires installs only the skills named ('agentskills
verify' reports the requirements missing); update installs what a new
version requires. In a Claude plugin marketplace, the plugins a plugin
depends on (the "dependencies" of its plugin.json or marketplace entry) are
required the same way: --plugin a installs the skills of the plugins a needs
in that marketplace, as dependencies; a version range must admit the version
the marketplace gives (its {name}--v{version} tags are not looked up), and a
plugin of another marketplace is reported as skipped: add that marketplace
too.

Trust: with --key FILE (or --certificate-identity[-regexp] and
--certificate-oidc-issuer[-regexp], as cosign names them) an OCI source is
installed only when its manifest is signed so, checked before its content is
downloaded. A -regexp flag must match the whole identity or issuer (it is
anchored for you, stricter than cosign, which matches it anywhere in the
value): alice@example\.com does not match evil-alice@example.com.attacker. The policy (.agents/agentskills.policy.yaml, which can only
tighten ~/.agents/agentskills.policy.yaml) says which sources are allowed,
whether they must be pinned and who must have signed them, checked before
anything is read. Every skill is audited: one with a finding at the policy's
threshold (default high) is skipped with its findings and the command exits
1, unless --allow-risk RULE names the rule. The lock file records who signed;
content later signed by anyone else is refused unless --accept-signer names
the new signer; then the lock file records it and the output says "signer of
NAME changed from OLD to NEW (accepted)", also when the content is the same.

Integrity: content that does not match the digest that names it (a web
index's skill whose download differs from the index's SHA-256, a URL whose
#sha256= differs, a registry's blob that does not match its digest) is
never installed and the command exits 1, saying "integrity check failed"
(code "integrity" in the error line of --json); without --strict the other
skills of the source are still installed.`

const addExample = `  agentskills add ./examples/skills --agent claude-code,codex
  agentskills add anthropics/skills --list
  agentskills add anthropics/skills@main --skill pdf
  agentskills add 'acme/skills@^1.2'
  agentskills add 'git+https://git.example.org/team/skills.git#ref=v1&path=skills'
  agentskills add https://gitlab.com/group/sub/skills/-/tree/main/skills
  agentskills add oci://ghcr.io/acme/review:1.2
  agentskills add ./kit.tgz --list
  agentskills add ./kit.tgz --skill review --global
  agentskills add 'https://example.org/kit.zip#sha256=0123...' --copy
  agentskills add ./skills --all --strict`

func newAddCmd(s *streams) *cobra.Command {
	opts := &addOptions{io: s}
	cmd := &cobra.Command{
		Use:     "add SOURCE...",
		Short:   "Install skills into agents' skill folders",
		Long:    addLong,
		Example: addExample,
		Args:    addArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if opts.list {
				return runAddList(cmd.Context(), opts, args)
			}
			return runAdd(cmd.Context(), opts, args)
		}),
	}
	opts.register(cmd)
	return cmd
}

// register adds add's flags to cmd.
func (opts *addOptions) register(cmd *cobra.Command) {
	opts.scope.register(cmd, "agents to install for, by id (default: those the lock file records, else those detected, else claude-code,codex)")
	opts.scope.registerAll(cmd)
	opts.scope.registerYes(cmd)
	cmd.Flags().BoolVar(&opts.copy, "copy", false, "copy the skill into each agent's folder instead of linking")
	cmd.Flags().StringArrayVarP(&opts.skills, "skill", "s", nil, "install only the skill of this name, or at this folder inside the source (repeatable)")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace installed skills that were changed since, moving each to a backup under .agents/backups first")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "fail, changing nothing, when a skill of a source cannot be installed (default: skip it and say why)")
	cmd.Flags().BoolVarP(&opts.list, "list", "l", false, "list the skills of each SOURCE (name, folder, description) and install nothing")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up a download that receives nothing for this long")
	cmd.Flags().StringArrayVar(&opts.plugins, "plugin", nil, "install only the skills of this Claude plugin of the source's marketplace (repeatable)")
	cmd.Flags().BoolVar(&opts.lenient, "lenient", false, "install, with a warning, a skill that breaks only the Agent Skills specification (a description over 1,024 characters); the lock file records it")
	cmd.Flags().BoolVar(&opts.noRequires, "no-requires", false, "install only the skills named, not the skills they require (the lock file records the requirements; verify reports those missing)")
	opts.trust.register(cmd, true)
	opts.scope.registerOutput(cmd)
	opts.scope.registerVerbose(cmd)
}

// installMemoryLimit is the soft memory limit add and sync run under
// unless GOMEMLIMIT sets one: an install of 10,000 skills holds some 40
// MiB, and without a limit the collector lets the heap grow to twice that
// before it runs.
const installMemoryLimit = 64 << 20

// boundMemory sets the Go runtime's soft memory limit to
// installMemoryLimit, unless GOMEMLIMIT (read by getenv) sets one. It is
// a soft limit: a larger install takes what it needs, collecting more
// often.
func boundMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(installMemoryLimit)
	}
}

func runAdd(ctx context.Context, opts *addOptions, sources []string) error {
	boundMemory(os.Getenv)
	trust, err := opts.trust.option(ctx, opts.scope.global, opts.timeout)
	if err != nil {
		return err
	}
	agents, in, err := opts.scope.selectedInstaller(install.WithDownloadTimeout(opts.timeout), trust)
	if err != nil {
		return err
	}
	req := install.AddRequest{Sources: sources, Agents: agents, Copy: opts.copy, Skills: opts.skills, Force: opts.force, Strict: opts.strict,
		Plugins: opts.plugins, Lenient: opts.lenient, NoRequires: opts.noRequires}
	choice, err := in.ChooseAgents(ctx, req)
	if err != nil {
		return installErr(err)
	}
	req.Agents = choice.List()
	changes, err := in.Add(ctx, req)
	err = trustHint(err)
	if !opts.scope.json && !opts.scope.quiet && (err == nil || install.Changed(changes)) {
		printChoice(opts.io.err, choice, &opts.scope)
	}
	var missing *install.MissingSkillsError
	if errors.As(err, &missing) && !opts.scope.json {
		fmt.Fprintln(opts.io.err, "The sources hold these skills:")
		printSourceSkills(opts.io.err, missing.Available)
	}
	if !opts.scope.quiet {
		warnRejected(opts.io, changes, opts.scope.verbose)
	}
	return printChanges(opts.io, changes, &opts.scope, err)
}

// runAddList prints what the sources hold, installing nothing.
func runAddList(ctx context.Context, opts *addOptions, sources []string) error {
	in, err := opts.scope.installer(install.WithDownloadTimeout(opts.timeout))
	if err != nil {
		return err
	}
	var all []install.SourceSkill
	for _, src := range sources {
		found, err := in.Contents(ctx, install.FindRequest{Source: src})
		if err != nil {
			return installErr(err)
		}
		all = append(all, found...)
	}
	if len(opts.plugins) > 0 {
		var have []string
		for _, s := range all {
			have = append(have, s.Plugins...)
		}
		slices.Sort(have)
		all = slices.DeleteFunc(all, func(s install.SourceSkill) bool {
			return !slices.ContainsFunc(s.Plugins, func(p string) bool { return slices.Contains(opts.plugins, p) })
		})
		if len(all) == 0 {
			return inputError{fmt.Errorf("%s: %w: it holds no skill of a plugin named %s; the plugins with skills there: %s",
				strings.Join(sources, " and "), install.ErrInvalidSource, strings.Join(opts.plugins, ", "), cmp.Or(strings.Join(slices.Compact(have), ", "), "none"))}
		}
	}
	if len(opts.skills) > 0 {
		var sel []install.SourceSkill
		for _, s := range all {
			if slices.Contains(opts.skills, s.Name) || slices.Contains(opts.skills, s.Path) {
				sel = append(sel, s)
			}
		}
		if len(sel) == 0 {
			if !opts.scope.json {
				printSourceSkills(opts.io.err, all)
			}
			return inputError{fmt.Errorf("%s: %w: no skill named %s", strings.Join(sources, " and "), install.ErrInvalidSource, strings.Join(opts.skills, ", "))}
		}
		all = sel
	}
	if opts.scope.json {
		if all == nil {
			all = []install.SourceSkill{}
		}
		return writeJSON(opts.io, all)
	}
	return printSourceSkills(opts.io.out, all)
}

// printSourceSkills prints a table of the skills sources hold: a SOURCE
// column when there are several, a PLUGIN column when a skill belongs to
// a Claude plugin, and for a skill add would skip, why; a skill nested in
// another's folder says so.
func printSourceSkills(w io.Writer, skills []install.SourceSkill) error {
	several := slices.ContainsFunc(skills, func(s install.SourceSkill) bool { return s.Source != skills[0].Source })
	plugins := slices.ContainsFunc(skills, func(s install.SourceSkill) bool { return len(s.Plugins) > 0 })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if several {
		fmt.Fprint(tw, "SOURCE\t")
	}
	if plugins {
		fmt.Fprint(tw, "PLUGIN\t")
	}
	fmt.Fprintln(tw, "SKILL\tPATH\tDESCRIPTION")
	for _, s := range skills {
		if several {
			fmt.Fprintf(tw, "%s\t", s.Source)
		}
		if plugins {
			fmt.Fprintf(tw, "%s\t", cmp.Or(strings.Join(s.Plugins, ","), "-"))
		}
		desc := oneLine(s.Description, 80)
		switch {
		case s.Spec != "":
			desc = "(skipped by add unless --lenient: " + oneLine(s.Spec, 0) + ")"
		case s.Problem != "":
			desc = "(skipped by add: " + oneLine(s.Problem, 0) + ")"
		case s.Within != "":
			desc = "(part of the skill at " + s.Within + "; --skill " + s.Path + " installs it alone)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Path, desc)
	}
	return tw.Flush()
}

// oneLine folds s onto one line and, with max > 0, cuts it to max
// characters, marking the cut with "...".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); max > 0 && len(r) > max {
		return string(r[:max-3]) + "..."
	}
	return s
}

// removeOptions are the options of remove.
type removeOptions struct {
	io    *streams
	scope scopeFlags
	force bool
}

func newRemoveCmd(s *streams) *cobra.Command {
	opts := &removeOptions{io: s}
	cmd := &cobra.Command{
		Use:   "remove NAME...",
		Short: "Remove skills this tool installed",
		Long: `Remove removes the named skills from the agents' folders (all agents it
installed them for, or those given with --agent). It removes only what it
installed; the canonical copy goes when no agent uses it any more. A skill
edited since it was installed is kept (exit 1, naming the changed files)
unless --force, which first moves it to .agents/backups. A skill the
policy requires (its required entries) is never removed, nor taken from
an agent the entry names: remove exits 1, naming the entry's file and
line, --force or not; change the policy file first.

A skill that other installed skills require (their SKILL.md's
metadata.requires) is kept too (exit 1, naming them: remove those first)
unless --force, which removes it anyway and says whose requirement is
then not installed ('agentskills verify' reports it until it is added
again). --force is one decision for both: remove what was asked,
whatever is in the way, backing up edits. Removing a skill also removes
the skills that were installed only because it required them and that
nothing left requires, each reported as "no longer required"; a skill
you added yourself stays.`,
		Example: `  agentskills remove code-review
  agentskills remove code-review --agent claude-code
  agentskills remove code-review --force`,
		Args: requireArgs("NAME"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runRemove(cmd.Context(), opts, args)
		}),
	}
	opts.scope.register(cmd, "agents to remove the skills for (default: all)")
	opts.scope.registerYes(cmd)
	cmd.Flags().BoolVar(&opts.force, "force", false, "remove skills that were changed since they were installed, moving each to a backup under .agents/backups first, and skills that other installed skills require")
	opts.scope.registerOutput(cmd)
	return cmd
}

func runRemove(ctx context.Context, opts *removeOptions, names []string) error {
	agents, in, err := opts.scope.policyInstaller(ctx, false)
	if err != nil {
		return err
	}
	changes, err := in.Remove(ctx, install.RemoveRequest{Names: names, Agents: agents, Force: opts.force, Required: opts.force})
	return printChanges(opts.io, changes, &opts.scope, err)
}

func newListCmd(s *streams) *cobra.Command {
	opts := &scopeOptions{io: s}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills in agents' folders and their state",
		Long: `List shows each skill in the folders the agents read, with its state:
installed, modified (its files no longer match the lock file), missing
(recorded but gone), external (present, but not installed by this tool) or
source (the folder an installed skill comes from, which is also an agent's
folder, as skills/ is OpenClaw's), and every agent that reads it there: the canonical copy under
.agents/skills is read by Codex, Cursor, Gemini CLI and many others, a link
under .claude/skills by Claude Code, Copilot, Cursor, Goose and OpenCode.
A skill installed from a source the policy requires is marked
"(required)" after its state. When installed skills require others
(their SKILL.md's metadata.requires), a REQUIRED BY column names, for each skill, the installed skills that
require it, marking "(dependency)" one installed only because they do,
which 'agentskills remove' takes away with the last of them.
With --json, one entry per skill and agent, with "required_by" and
"dependency" for a skill this tool installed, and "required_by_policy"
naming the policy entry that requires it (required[N] (FILE:LINE)).`,
		Example: `  agentskills list
  agentskills list --agent claude-code --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runList(cmd.Context(), opts)
		}),
	}
	opts.scope.register(cmd, "agents to list (default: all known)")
	cmd.Flags().BoolVar(&opts.scope.json, "json", false, "print the list as JSON")
	return cmd
}

func runList(ctx context.Context, opts *scopeOptions) error {
	agents, in, err := opts.scope.policyInstaller(ctx, true)
	if err != nil {
		return err
	}
	st, err := in.List(ctx, install.ListRequest{Agents: agents})
	if err != nil {
		return installErr(err)
	}
	return printStatus(opts.io, st, opts.scope.json)
}

func printStatus(s *streams, st []install.Status, asJSON bool) error {
	if asJSON {
		if st == nil {
			st = []install.Status{}
		}
		return writeJSON(s, st)
	}
	if len(st) == 0 {
		fmt.Fprintln(s.out, "No skills.")
		return nil
	}
	// One row per skill folder, with every agent that reads it.
	type row struct {
		skill, path string
		state       install.State
		required    bool
		agents      []string
		requiredBy  string
	}
	type key struct {
		skill, path string
		state       install.State
	}
	var rows []*row
	byKey := map[key]*row{}
	requirements := false // a REQUIRED BY column, only when a skill has one
	for _, x := range st {
		k := key{x.Skill, x.Path, x.State}
		r := byKey[k]
		if r == nil {
			r = &row{skill: x.Skill, state: x.State, path: x.Path, required: x.RequiredByPolicy != "", requiredBy: requiredByCell(x)}
			byKey[k] = r
			rows = append(rows, r)
			requirements = requirements || r.requiredBy != ""
		}
		if !slices.Contains(r.agents, x.Agent) {
			r.agents = append(r.agents, x.Agent)
		}
	}
	slices.SortStableFunc(rows, func(a, b *row) int {
		return cmp.Or(strings.Compare(a.skill, b.skill), strings.Compare(a.path, b.path))
	})
	// The table goes out in large writes: the tab writer writes each
	// cell on its own, and a list of 10,000 skills has some 80,000.
	b := bufio.NewWriterSize(s.out, 64<<10)
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	short := shortPaths()
	if requirements {
		fmt.Fprintln(w, "SKILL\tSTATE\tPATH\tREQUIRED BY\tAGENTS")
	} else {
		fmt.Fprintln(w, "SKILL\tSTATE\tPATH\tAGENTS")
	}
	for _, r := range rows {
		slices.Sort(r.agents)
		state := string(r.state)
		if r.required {
			state += " (required)" // by the policy
		}
		if requirements {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.skill, state, short(r.path), cmp.Or(r.requiredBy, "-"), strings.Join(r.agents, ", "))
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.skill, state, short(r.path), strings.Join(r.agents, ", "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return b.Flush()
}

// requiredByCell is what list's REQUIRED BY column says of a skill: the
// installed skills that require it, and "(dependency)" for one installed
// only because others require it; "" for neither.
func requiredByCell(st install.Status) string {
	cell := strings.Join(st.RequiredBy, ", ")
	if st.Dependency {
		cell = strings.TrimSpace(cell + " (dependency)")
	}
	return cell
}

type syncOptions struct {
	io      *streams
	scope   scopeFlags
	frozen  bool
	force   bool
	timeout time.Duration
	trust   trustFlags
}

func newSyncCmd(s *streams) *cobra.Command {
	opts := &syncOptions{io: s}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Make the agents' folders match the lock file",
		Long: `Sync installs again every skill recorded in .agents/agentskills.lock, from
its recorded source, for its recorded agents, under one lock for the whole
run, and reports every repair. It checks everything first and changes
nothing when something is wrong: a skill edited since it was installed is
kept (exit 1, naming the changed files) unless --force, which first moves it
to .agents/backups. With --frozen, as npm ci does, it installs exactly what
the lock file records and never records anything new: it still restores
what is missing or broken, but when any source no longer has the recorded
content it fails (exit 1), changing nothing, listing every one (without
--frozen a changed folder or unpinned URL updates its skill and the lock
file). verify checks without changing anything. A pinned
source (a commit, a manifest digest, a URL#sha256=) that gives content other
than the lock file records for its pin always fails (exit 1), naming both
digests: content at a pin never changes. To accept it, remove the skill and
add it again. Sync checks trust as add does (the policy, the signer the lock
file records, the audit), and a refusal fails the whole sync, changing
nothing. Without a lock file there is nothing to sync: it says so and
exits 0, writing nothing (add skills with 'agentskills add SOURCE'); with
--frozen, as npm ci does, it fails then (exit 1), naming the lock file it
looked for. Then it installs each skill the policy requires (its
required entries, the user's and the project's) that is missing, or
installed at a version outside the entry's range, as add would, and
records it in the lock file (writing one if there was none); it exits 1
when one is still not met (two entries whose ranges admit no common
version). With --frozen it installs none: it fails first (exit 1),
changing nothing, naming each one not met.`,
		Example: `  agentskills sync
  agentskills sync --frozen`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runSync(cmd.Context(), opts)
		}),
	}
	opts.scope.registerGlobal(cmd)
	cmd.Flags().BoolVar(&opts.frozen, "frozen", false, "install exactly what the lock file records (restoring what is missing), and fail, changing nothing, if a source no longer matches its recorded digest")
	cmd.Flags().BoolVar(&opts.force, "force", false, "replace installed skills that were changed since, moving each to a backup under .agents/backups first")
	cmd.Flags().DurationVar(&opts.timeout, "timeout", install.DefaultDownloadTimeout, "give up a download that receives nothing for this long")
	opts.trust.register(cmd, true)
	opts.scope.registerOutput(cmd)
	return cmd
}

func runSync(ctx context.Context, opts *syncOptions) error {
	boundMemory(os.Getenv)
	opts.trust.frozen = opts.frozen
	in, err := opts.scope.trustedInstaller(ctx, &opts.trust, opts.timeout)
	if err != nil {
		return err
	}
	required, err := in.PolicyRequired(ctx)
	if err != nil {
		return installErr(err)
	}
	lock := filepath.Join(in.Root(), ".agents", "agentskills.lock")
	if _, err := os.Lstat(lock); errors.Is(err, fs.ErrNotExist) && !opts.scope.json && !opts.frozen && len(required) == 0 {
		// Sync writes nothing then either.
		if !opts.scope.quiet {
			fmt.Fprintf(opts.io.out, "Nothing to sync: there is no lock file (%s). Add skills with 'agentskills add SOURCE', which writes it.\n", shortPaths()(lock))
		}
		return nil
	}
	changes, err := in.Sync(ctx, install.SyncRequest{Frozen: opts.frozen, Force: opts.force})
	err = trustHint(err)
	if !opts.scope.json {
		if aerr := printSyncAllowed(ctx, in, opts.io, changes); aerr != nil && err == nil {
			err = aerr
		}
	}
	return printChanges(opts.io, changes, &opts.scope, err)
}

// printSyncAllowed says, on stderr, which skills a sync put in place
// although the audit flags them, because the lock file records their
// findings as allowed for that content (add --allow-risk): a lock file
// written by someone else, in a cloned project, is that person's
// decision, so it is never applied silently.
func printSyncAllowed(ctx context.Context, in *install.Installer, s *streams, changes []install.Change) error {
	made := map[string]bool{}
	for _, c := range changes {
		if c.Agent == "" && c.Action != install.ActionUnchanged && c.Action != install.ActionSkipped {
			made[c.Skill] = true
		}
	}
	if len(made) == 0 {
		return nil
	}
	allowed, err := in.RecordedRisks(ctx)
	if err != nil {
		return installErr(err)
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		if made[name] {
			a := allowed[name]
			fmt.Fprintf(s.err, "allowed   %s: audit rules %s, as the lock file records for its content %s (add --allow-risk); 'agentskills audit' shows the findings\n", name, strings.Join(a.Rules, ", "), shortPin(a.Digest))
		}
	}
	return nil
}

func newVerifyCmd(s *streams) *cobra.Command {
	opts := &scopeOptions{io: s}
	var trust trustFlags
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Re-hash installed skills against the lock file",
		Long: `Verify re-hashes every installed skill and compares it with the digest in
.agents/agentskills.lock. It exits 1, listing what differs, when anything
was modified or is missing, and when a skill requires another (its
SKILL.md's metadata.requires) that is not installed, naming both (with
--json, an entry in state "unmet" with its "requirement"). It also
checks what is recorded against the trust rules, changing nothing: each
source against the policy (.agents/agentskills.policy.yaml and the
user's), each recorded signer again (from the signatures the skill cache
keeps, without --key), and each installed skill's audit against the
policy's threshold; a refusal exits 1 with its reason. Each skill the
policy requires (its required entries) must be installed from its
source, at a version within the entry's range, for the agents it names:
verify exits 1 naming each one missing or out of range, and its entry's
file and line ('agentskills sync' installs them).`,
		Example: `  agentskills verify
  agentskills verify --global --json`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), opts, &trust)
		}),
	}
	opts.scope.registerGlobal(cmd)
	trust.register(cmd, false)
	cmd.Flags().BoolVar(&opts.scope.json, "json", false, "print what differs as JSON")
	return cmd
}

func runVerify(ctx context.Context, opts *scopeOptions, tf *trustFlags) error {
	// verify changes nothing and reads no network: the policy's files
	// extended are read from the cache at the lock file's pins.
	tf.frozen, tf.offline = true, true
	trust, err := tf.option(ctx, opts.scope.global, 0)
	if err != nil {
		return err
	}
	in, err := opts.scope.installer(trust)
	if err != nil {
		return err
	}
	required, err := in.PolicyRequired(ctx)
	if err != nil {
		return installErr(err)
	}
	policyUnmet := install.UnmetPolicyRequired(required)
	bad, err := in.Verify(ctx)
	if errors.Is(err, install.ErrNothingRecorded) && policyUnmet != nil {
		return policyUnmet // nothing recorded, but something required
	}
	if err != nil {
		return installErr(err)
	}
	differ := slices.DeleteFunc(slices.Clone(bad), func(b install.Status) bool { return b.State == install.StateUnmet })
	unmet := len(bad) - len(differ)
	refused, err := checkTrust(ctx, in, opts.io)
	if err != nil {
		return err
	}
	if !opts.scope.json {
		if err := printAllowed(ctx, in, opts.io); err != nil {
			return err
		}
	}
	if opts.scope.json {
		if err := printStatus(opts.io, bad, true); err != nil {
			return err
		}
	} else if len(bad) == 0 && refused == nil && policyUnmet == nil {
		fmt.Fprintln(opts.io.out, "All installed skills match the lock file.")
	} else {
		for _, b := range differ {
			fmt.Fprintf(opts.io.err, "%s: %s for %s (%s)\n", b.Skill, b.State, b.Agent, shortPath(b.Path))
		}
		for _, b := range bad {
			switch {
			case b.State != install.StateUnmet:
			case isPathRequirement(b.Requirement):
				// A path is relative to the requiring skill's folder, not
				// to the working folder: adding the skill again installs it.
				fmt.Fprintf(opts.io.err, "%s requires %s (a path relative to %s's source folder), which is not installed; run 'agentskills add' with %s's source to install it\n", b.Skill, b.Requirement, b.Skill, b.Skill)
			default:
				fmt.Fprintf(opts.io.err, "%s requires %s, which is not installed; run 'agentskills add %s' to install it\n", b.Skill, b.Requirement, b.Requirement)
			}
		}
	}
	if policyUnmet != nil && (len(bad) > 0 || refused != nil) {
		fmt.Fprintln(opts.io.err, policyUnmet) // the failure returned is the other
	}
	var problems []string
	if len(differ) > 0 {
		if !opts.scope.json {
			fmt.Fprintln(opts.io.err, "Run 'agentskills sync' to restore what is missing, and 'agentskills sync --force' to replace what was modified (each is moved to a backup under .agents/backups first).")
		}
		problems = append(problems, fmt.Sprintf("%d installed skill folders differ from the lock file; run 'agentskills sync' to restore them", len(differ)))
	}
	if unmet > 0 {
		problems = append(problems, fmt.Sprintf("%d requirements of installed skills are not installed; add them with 'agentskills add'", unmet))
	}
	if len(problems) > 0 {
		return reported(strings.Join(problems, "; "))
	}
	if refused != nil {
		return refused
	}
	return policyUnmet
}

type agentsOptions struct {
	io   *streams
	json bool
}

func newAgentsCmd(s *streams) *cobra.Command {
	opts := &agentsOptions{io: s}
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the known agents, which are detected here, and their folders",
		Long: `Agents lists every agent the npm skills tool knows, by the same ids: its
name, whether it is detected here (its configuration folder exists), the
folder skills are installed into for it in a project (relative) and for
the user (--global), and the other folders it also reads skills from
(in a project, for the user, and outside both, such as /etc/codex/skills).
Agents that read .agents/skills are installed there, with no link. RUN
says which agents 'agentskills run --agent ID' can drive.`,
		Example: `  agentskills agents
  agentskills agents --json | jq -r '.[] | select(.detected) | .id'`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return runAgentList(opts)
		}),
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the agents as JSON")
	return cmd
}

// agentRow is one agent in the output of agents.
type agentRow struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Detected bool   `json:"detected"`
	// Run says whether 'agentskills run' can drive the agent.
	Run     bool   `json:"run"`
	Project string `json:"project"`
	User    string `json:"user"`
	// Override is the variable that moves User, if any.
	Override string `json:"override,omitempty"`
	// The folders the agent reads, Project and User first.
	ProjectReads []string `json:"project_reads"`
	UserReads    []string `json:"user_reads"`
	// SystemReads are the folders outside both scopes it reads.
	SystemReads []string `json:"system_reads,omitempty"`
}

func runAgentList(opts *agentsOptions) error {
	env, err := install.CurrentEnv()
	if err != nil {
		return err
	}
	rows, err := agentRows(env)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSON(opts.io, rows)
	}
	w := tabwriter.NewWriter(opts.io.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tDETECTED\tRUN\tPROJECT FOLDER\tUSER FOLDER\tALSO READS")
	yes := map[bool]string{false: "no", true: "yes"}
	for _, r := range rows {
		also := slices.Concat(r.ProjectReads[1:], r.UserReads[1:], r.SystemReads)
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, yes[r.Detected], yes[r.Run], r.Project, r.User, strings.Join(also, ", "))
	}
	return w.Flush()
}

// agentRows describes every known agent in env, its project folders
// relative to the project.
func agentRows(env install.Env) ([]agentRow, error) {
	var rows []agentRow
	runs := runnables()
	for _, a := range install.Agents() {
		r := agentRow{ID: a.ID, Name: a.Name, Detected: a.Detected(env), Project: a.ProjectDir,
			Run: slices.ContainsFunc(runs, func(d driver.Descriptor) bool { return d.ID == a.ID }), User: a.Dir(env, install.User), Override: a.Override, UserReads: a.Reads(env, install.User), SystemReads: a.System()}
		for _, p := range a.Reads(env, install.Project) {
			rel, err := filepath.Rel(env.Project, p)
			if err != nil {
				return nil, err
			}
			r.ProjectReads = append(r.ProjectReads, filepath.ToSlash(rel))
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// isPathRequirement reports whether a requirement names a folder by its
// path (install rule 17: ./x, ../x, /x, or the system's form of these).
func isPathRequirement(req string) bool {
	return strings.HasPrefix(req, "./") || strings.HasPrefix(req, "../") || strings.HasPrefix(req, "/") ||
		filepath.IsAbs(req) || strings.HasPrefix(req, "."+string(filepath.Separator)) || strings.HasPrefix(req, ".."+string(filepath.Separator))
}
