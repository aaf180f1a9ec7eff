package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/install"
	"github.com/agentadaptor/agentadaptor/internal/kube"
	"github.com/agentadaptor/agentadaptor/skill"
	"github.com/agentadaptor/agentadaptor/source"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// The values of --emit.
const (
	emitKubernetes   = "kubernetes"
	emitAgentSandbox = "agent-sandbox"
)

// emitHelp is what run's help says about --emit.
const emitHelp = `To a cluster: --emit kubernetes prints, instead of running, a batch/v1
Job that runs exactly this run in a pod (--emit agent-sandbox: a
SandboxTemplate, a SandboxWarmPool of no warm pods and a SandboxClaim of
kubernetes-sigs/agent-sandbox, API extensions.agents.x-k8s.io/v1beta1).
--runner-image REF is the pod's image, which must hold the agent's
program and agentskills. Each skill is an image volume, pinned to the
digest its tag names now and mounted read-only under /skills, so every
--skill must be an oci:// reference: a local folder or archive is bad
usage (exit 2; publish it with agentskills push first). The skills are
fetched and checked here, against the policy and the signers, as a run
checks them. The model's credentials come from the Secret --secret
names (envFrom), never from this environment; --run-timeout becomes
activeDeadlineSeconds; a finished Job is removed after a day. The pod
runs agentskills run with the same agent, flags and prompt, in an empty
/workspace. The guide: docs/kubernetes.md.`

// emitFlags are the flags that print a run for a cluster instead of
// running it.
type emitFlags struct {
	emit        string
	runnerImage string
	secret      string
}

// register adds the flags to cmd; emits says what --emit takes.
func (f *emitFlags) register(cmd *cobra.Command, emits string) {
	fs := cmd.Flags()
	fs.StringVar(&f.emit, "emit", "", "print, instead of running, what runs it in a cluster: "+emits)
	fs.StringVar(&f.runnerImage, "runner-image", "", "with --emit: the pod's image, holding the agent's program and agentskills (required with --emit)")
	fs.StringVar(&f.secret, "secret", "", "with --emit: the Secret the model's credentials come from (default: none)")
}

// check refuses a flag of emit without --emit, an unknown --emit and a
// missing or malformed --runner-image or --secret: bad usage.
func (f *emitFlags) check() error {
	if f.emit == "" {
		switch {
		case f.runnerImage != "":
			return usageErrorf("--runner-image is the image of the pod --emit prints: give --emit kubernetes or --emit agent-sandbox")
		case f.secret != "":
			return usageErrorf("--secret names the Secret of the pod --emit prints: give --emit kubernetes or --emit agent-sandbox")
		}
		return nil
	}
	if f.emit != emitKubernetes && f.emit != emitAgentSandbox {
		return usageErrorf("--emit %q: give kubernetes (a Job) or agent-sandbox (a SandboxTemplate and SandboxClaim)", f.emit)
	}
	if f.runnerImage == "" {
		return usageErrorf("--emit needs --runner-image REF: an image that holds the agent's program and agentskills (docs/kubernetes.md builds one)")
	}
	if err := kube.CheckImage(f.runnerImage); err != nil {
		return usageErrorf("--runner-image: %w", err)
	}
	if f.secret != "" {
		if err := kube.CheckSubdomain("--secret", f.secret); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// mountable reports whether container runtimes unpack a layer of media
// type mt into an image volume: OCI's image layers (CRI-O pulls only
// these) and Docker's.
func mountable(mt string) bool {
	switch mt {
	case "application/vnd.oci.image.layer.v1.tar", "application/vnd.oci.image.layer.v1.tar+gzip",
		"application/vnd.oci.image.layer.v1.tar+zstd", "application/vnd.docker.image.rootfs.diff.tar.gzip":
		return true
	}
	return false
}

// emitSkill is a skill as a pod mounts it.
type emitSkill struct {
	vol kube.Skill
	// path is the skill's folder in the pod: its mount, and the folder
	// of the image that holds SKILL.md below it.
	path string
}

// checkEmitSources refuses a source that is not oci://, which cannot be
// mounted: bad usage, said before anything is read. what names each
// source's flag or argument.
func checkEmitSources(what, sources []string) error {
	for i, src := range sources {
		spec, err := source.Parse(src)
		if err != nil {
			return inputError{err}
		}
		if spec.Kind != source.OCI {
			dir := "DIR"
			if _, serr := os.Stat(filepath.Join(src, "SKILL.md")); spec.Kind == source.Local && serr == nil {
				dir = src
			}
			return usageErrorf("%s %s: --emit mounts each skill as an image, and this is a %s source: publish the skill's folder with \"agentskills push %s oci://HOST/REPO:TAG\" and pass that reference", what[i], src, spec.Kind, dir)
		}
	}
	return nil
}

// emitSkills finds, pins and checks the skills of sources as a run does
// (the policy of workspace, the signers, the audit), and returns each as
// an image volume at SkillsDir/NAME.
func emitSkills(ctx context.Context, tf *trustFlags, workspace string, timeout time.Duration, sources []string) ([]emitSkill, error) {
	env, err := install.CurrentEnv()
	if err != nil {
		return nil, err
	}
	trust, err := loadRunTrust(ctx, tf, sources, env, workspace, timeout)
	if err != nil {
		return nil, err
	}
	refs, err := trust.findSkills(ctx, install.New(env, install.WithDownloadTimeout(timeout), install.WithSettingNames(settingFlags)), sources)
	if err != nil {
		return nil, interrupted(ctx, findErr(err))
	}
	m := trust.materializer()
	var skills []emitSkill
	seen := map[string]bool{}
	for _, r := range refs {
		s := r.(skill.Skill)
		if _, err := m.Materialize(ctx, s); err != nil {
			return nil, interrupted(ctx, err)
		}
		if seen[s.Key] {
			return nil, inputError{fmt.Errorf("two skills are named %s, and a run mounts one of each name: leave one out", s.Key)}
		}
		seen[s.Key] = true
		es, err := emitMount(ctx, s, "")
		if err != nil {
			return nil, err
		}
		skills = append(skills, es)
	}
	return skills, nil
}

// emitMount is the image volume of s, a skill found by
// runTrust.findSkills from an oci:// source, mounted at dir (default:
// SkillsDir/NAME): the image pinned to the digest its tag named, which
// must be one a runtime mounts.
func emitMount(ctx context.Context, s skill.Skill, dir string) (emitSkill, error) {
	origin, ok := s.Source.(runOCIOrigin)
	if !ok {
		return emitSkill{}, fmt.Errorf("skill %s: not pinned to an image", s.Key)
	}
	art, err := oci.Fetch(ctx, origin.ref)
	if err != nil {
		return emitSkill{}, interrupted(ctx, err)
	}
	if !mountable(art.Layer.MediaType) {
		return emitSkill{}, inputError{fmt.Errorf("skill %s (%s): its layer is of type %s, which container runtimes do not mount (an artifact, as agentskills push wrote skills before images): push the skill again, as an image (push's default), and pass that reference", s.Key, origin.ref, art.Layer.MediaType)}
	}
	vol := kube.Skill{Name: s.Key, Reference: art.Ref.Host + "/" + art.Ref.Repository + "@" + art.Digest, Dir: dir}
	p := vol.MountDir()
	if art.Subpath != "" {
		p += "/" + art.Subpath
	}
	return emitSkill{vol: vol, path: p}, nil
}

// emitRun prints the objects that run opts in a cluster (--emit).
func emitRun(ctx context.Context, opts *runOptions, prompt string) error {
	if opts.resume != "" {
		return usageErrorf("--resume continues a session recorded here, which a pod does not have: leave it out with --emit")
	}
	if opts.runTimeout < 0 {
		return usageErrorf("--run-timeout %s is negative: give a duration such as 10m, or 0 for no limit", opts.runTimeout)
	}
	if _, err := runDriver(opts); err != nil {
		return err
	}
	what := make([]string, len(opts.skills))
	for i := range what {
		what[i] = "--skill"
	}
	if err := checkEmitSources(what, opts.skills); err != nil {
		return err
	}
	workspace, err := runWorkspace(opts.workspace)
	if err != nil {
		return err
	}
	skills, err := emitSkills(ctx, &opts.trust, workspace, opts.timeout, opts.skills)
	if err != nil {
		return err
	}
	args := []string{"run", "--agent=" + opts.agent}
	var vols []kube.Skill
	for _, s := range skills {
		args = append(args, "--skill="+s.path)
		vols = append(vols, s.vol)
	}
	args = append(args, runFlagArgs(opts)...)
	args = append(args, "--", prompt)
	if err := emitUTF8(args, true); err != nil {
		return err
	}
	p := kube.Pod{
		Name:     emitName("run", opts.agent, opts.emitFlags, args, vols, opts.runTimeout),
		Labels:   map[string]string{"app.kubernetes.io/name": "agentskills", "app.kubernetes.io/component": "run"},
		Image:    opts.emitFlags.runnerImage,
		Args:     args,
		Skills:   vols,
		Secret:   opts.emitFlags.secret,
		Deadline: opts.runTimeout,
	}
	return emitObjects(opts.io, opts.emitFlags.emit, p, kube.JobOptions{})
}

// emitUTF8 refuses, as bad usage, an argument of the pod's command that
// is not UTF-8: a Kubernetes string is UTF-8 text, and other bytes would
// reach the pod altered. prompt says the last argument is the prompt.
func emitUTF8(args []string, prompt bool) error {
	for i, a := range args {
		if utf8.ValidString(a) {
			continue
		}
		what := "PROMPT"
		if !prompt || i != len(args)-1 {
			what, _, _ = strings.Cut(a, "=")
		}
		return usageErrorf("%s: not UTF-8: Kubernetes carries only UTF-8 text: %q: give it in UTF-8", what, a)
	}
	return nil
}

// runFlagArgs are the flags of opts that the pod's run is given as they
// were given here: the model, the agent's flags, --allow-risk, --json and
// --quiet. The skills, --run-timeout (the Job's deadline), --workspace
// (the pod's is /workspace), --timeout (nothing is downloaded) and the
// signers (checked here) are not (TestEmitRunFlags lists every flag).
func runFlagArgs(opts *runOptions) []string {
	var args []string
	if opts.model != "" {
		args = append(args, "--model="+opts.model)
	}
	args = append(args, opts.agentFlags.args()...)
	for _, r := range opts.trust.allowRisks {
		args = append(args, "--allow-risk="+r)
	}
	if opts.json {
		args = append(args, "--json")
	}
	if opts.quiet {
		args = append(args, "--quiet")
	}
	return args
}

// args are the agent's flags as given, for a pod's command line.
// --agent-command is a path in the runner image, given as it is.
func (f *agentFlags) args() []string {
	var args []string
	if f.permissionMode != "" {
		args = append(args, "--permission-mode="+f.permissionMode)
	}
	if f.skipPermissions {
		args = append(args, "--skip-permissions")
	}
	for _, t := range f.allowedTools {
		args = append(args, "--allowed-tools="+t)
	}
	for _, t := range f.disallowedTools {
		args = append(args, "--disallowed-tools="+t)
	}
	if f.maxTurns > 0 {
		args = append(args, "--max-turns="+strconv.Itoa(f.maxTurns))
	}
	for _, a := range f.agentArgs {
		args = append(args, "--agent-arg="+a)
	}
	if f.agentCommand != "" {
		args = append(args, "--agent-command="+f.agentCommand)
	}
	return args
}

// emitName names the objects: agentskills-CMD-AGENT-HASH, HASH ten hex
// digits of what the pod runs, so the same run printed twice is the same
// Job, and another run another.
func emitName(cmd, agent string, f emitFlags, args []string, vols []kube.Skill, deadline time.Duration) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00", cmd, f.emit, f.runnerImage, f.secret, deadline)
	for _, a := range args {
		fmt.Fprintf(h, "%d:%s\x00", len(a), a)
	}
	for _, v := range vols {
		fmt.Fprintf(h, "%s=%s\x00", v.Name, v.Reference)
	}
	name := "agentskills-" + cmd + "-" + agent
	if len(name) > 63-11 {
		name = strings.TrimRight(name[:63-11], "-")
	}
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:10]
}

// emitObjects prints the objects of p: a Job, or agent-sandbox's
// template, pool and claim.
func emitObjects(s *streams, emit string, p kube.Pod, o kube.JobOptions) error {
	var objs []any
	switch emit {
	case emitKubernetes:
		j, err := kube.NewJob(p, o)
		if err != nil {
			return err
		}
		objs = append(objs, j)
	default:
		tmpl, pool, claim, err := kube.Sandbox(p, o.TTL)
		if err != nil {
			return err
		}
		objs = append(objs, tmpl, pool, claim)
	}
	return kube.Encode(s.data, objs...)
}
