package kube

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Where the pod keeps what it mounts (# The pod, rules 2 and 3).
const (
	// SkillsDir holds one folder per skill, each an image volume.
	SkillsDir = "/skills"
	// CacheDir is the skill cache, an emptyDir.
	CacheDir = "/agentskills/cache"
	// CacheEnv names the skill cache's root to agentskills (package
	// skill's SkillCacheRootEnv).
	CacheEnv = "AGENT_ADAPTOR_SKILL_CACHE_ROOT"
	// WorkspaceDir is the folder the agent works in, an emptyDir.
	WorkspaceDir = "/workspace"
	// ContainerName is the one container's name.
	ContainerName = "agentskills"
)

// The API versions and kinds written.
const (
	JobAPIVersion     = "batch/v1"
	SandboxAPIVersion = "extensions.agents.x-k8s.io/v1beta1"
)

// DefaultTTL is how long a finished Job, or a claim whose sandbox
// finished, is kept before Kubernetes removes it (with its pods and
// their logs): a day, to read the logs of a run that failed overnight.
const DefaultTTL = 24 * time.Hour

// IndexVar is the argument an Indexed Job's pod reads its completion
// index from: Kubernetes expands it from the variable it sets.
const IndexVar = "$(JOB_COMPLETION_INDEX)"

// Pod is what a run's pod holds (# The pod).
type Pod struct {
	// Name names the objects (a DNS label).
	Name string
	// Labels are set on every object and on the pod.
	Labels map[string]string
	// Image is the runner image: it holds the agent's program and
	// agentskills.
	Image string
	// Command is the container's command. Default: ["agentskills"].
	Command []string
	// Args are the command's arguments, each reaching it as given:
	// every $ is written $$, so Kubernetes expands none of them
	// (# The pod, rule 7).
	Args []string
	// IndexFlag, when set, makes the last argument IndexFlag followed
	// by [IndexVar], which Kubernetes expands to the pod's completion
	// index; "" for none. Only an Indexed Job's pod has one.
	IndexFlag string
	// Skills are mounted as image volumes, in this order.
	Skills []Skill
	// Secret names the Secret the model's credentials come from; ""
	// for none.
	Secret string
	// Deadline bounds the run (activeDeadlineSeconds, rounded up to a
	// second); 0 for no limit.
	Deadline time.Duration
	// Output is a claim mounted read-write; nil for none.
	Output *Claim
}

// Skill is a skill's image volume.
type Skill struct {
	// Name is the skill's name.
	Name string
	// Reference is the image, pinned by digest: HOST/REPO@sha256:HEX.
	Reference string
	// Dir is the folder it is mounted at. Default: SkillsDir/Name.
	Dir string
}

// MountDir is the folder the skill is mounted at: Dir, else
// SkillsDir/Name.
func (s Skill) MountDir() string {
	if s.Dir != "" {
		return s.Dir
	}
	return SkillsDir + "/" + s.Name
}

// Claim is a PersistentVolumeClaim mounted in the pod.
type Claim struct {
	// Name is the claim's name.
	Name string
	// Path is where it is mounted.
	Path string
}

// JobOptions are a Job's settings beside its pod.
type JobOptions struct {
	// TTL is ttlSecondsAfterFinished. Default (0): DefaultTTL.
	TTL time.Duration
	// Completions > 0 makes an Indexed Job of that many completions.
	Completions int
	// Parallelism is how many of an Indexed Job's pods run at a time.
	// Default (0): Kubernetes' default, one.
	Parallelism int
}

// NewJob returns the Job that runs p (# The Job).
func NewJob(p Pod, o JobOptions) (*Job, error) {
	spec, err := p.spec()
	if err != nil {
		return nil, err
	}
	if p.IndexFlag != "" && o.Completions == 0 {
		return nil, errors.New("an index flag is for an Indexed Job: give its completions")
	}
	if o.Completions < 0 || o.Parallelism < 0 || o.TTL < 0 {
		return nil, errors.New("negative completions, parallelism or time to live")
	}
	if o.Parallelism > 0 && o.Completions == 0 {
		return nil, errors.New("parallelism is for an Indexed Job: give its completions")
	}
	j := &Job{
		APIVersion: JobAPIVersion,
		Kind:       "Job",
		Metadata:   p.meta(),
		Spec: JobSpec{
			BackoffLimit:            ptr[int32](0),
			ActiveDeadlineSeconds:   seconds(p.Deadline),
			TTLSecondsAfterFinished: ttl(o.TTL),
			Template:                PodTemplateSpec{Metadata: Meta{Labels: p.Labels}, Spec: spec},
		},
	}
	if o.Completions > 0 {
		n, err := int32Of("completions", o.Completions)
		if err != nil {
			return nil, err
		}
		j.Spec.CompletionMode = "Indexed"
		j.Spec.Completions = &n
		j.Spec.BackoffLimit, j.Spec.BackoffLimitPerIndex = nil, ptr[int32](0)
		if o.Parallelism > 0 {
			par, err := int32Of("parallelism", o.Parallelism)
			if err != nil {
				return nil, err
			}
			j.Spec.Parallelism = &par
		}
	}
	return j, nil
}

// Sandbox returns the SandboxTemplate, SandboxWarmPool and SandboxClaim
// that run p once (# agent-sandbox); ttl is the claim's
// ttlSecondsAfterFinished, 0 for DefaultTTL.
func Sandbox(p Pod, ttlAfter time.Duration) (*SandboxTemplate, *SandboxWarmPool, *SandboxClaim, error) {
	spec, err := p.spec()
	if err != nil {
		return nil, nil, nil, err
	}
	if ttlAfter < 0 {
		return nil, nil, nil, errors.New("negative time to live")
	}
	if p.IndexFlag != "" {
		return nil, nil, nil, errors.New("an index flag is for an Indexed Job, not a sandbox")
	}
	spec.ActiveDeadlineSeconds = seconds(p.Deadline)
	tmpl := &SandboxTemplate{
		APIVersion: SandboxAPIVersion,
		Kind:       "SandboxTemplate",
		Metadata:   p.meta(),
		Spec:       SandboxTemplateSpec{PodTemplate: SandboxPodTemplate{Metadata: Meta{Labels: p.Labels}, Spec: spec}},
	}
	pool := &SandboxWarmPool{
		APIVersion: SandboxAPIVersion,
		Kind:       "SandboxWarmPool",
		Metadata:   p.meta(),
		Spec:       SandboxWarmPoolSpec{Replicas: ptr[int32](0), SandboxTemplateRef: Ref{Name: p.Name}},
	}
	claim := &SandboxClaim{
		APIVersion: SandboxAPIVersion,
		Kind:       "SandboxClaim",
		Metadata:   p.meta(),
		Spec: SandboxClaimSpec{
			WarmPoolRef: Ref{Name: p.Name},
			Lifecycle:   &SandboxLifecycle{TTLSecondsAfterFinished: ttl(ttlAfter)},
		},
	}
	return tmpl, pool, claim, nil
}

func (p Pod) meta() Meta { return Meta{Name: p.Name, Labels: p.Labels} }

// spec checks p (# The pod, rules 6 and 7) and returns its pod spec.
func (p Pod) spec() (PodSpec, error) {
	if err := CheckName("name", p.Name); err != nil {
		return PodSpec{}, err
	}
	if err := CheckImage(p.Image); err != nil {
		return PodSpec{}, err
	}
	for k, v := range p.Labels {
		if !labelKey().MatchString(k) || len(v) > 63 || !labelValue().MatchString(v) {
			return PodSpec{}, fmt.Errorf("label %q: %q is not a label", k, v)
		}
	}
	if p.Deadline < 0 {
		return PodSpec{}, errors.New("negative deadline")
	}
	command := p.Command
	if len(command) == 0 {
		command = []string{"agentskills"}
	}
	args := make([]string, 0, len(p.Args)+1)
	for i, a := range p.Args {
		if !utf8.ValidString(a) {
			return PodSpec{}, fmt.Errorf("argument %d: %q is not UTF-8: a Kubernetes string is UTF-8 text", i+1, a)
		}
		args = append(args, strings.ReplaceAll(a, "$", "$$"))
	}
	if p.IndexFlag != "" {
		if !utf8.ValidString(p.IndexFlag) {
			return PodSpec{}, fmt.Errorf("index flag %q is not UTF-8: a Kubernetes string is UTF-8 text", p.IndexFlag)
		}
		args = append(args, strings.ReplaceAll(p.IndexFlag, "$", "$$")+IndexVar)
	}
	c := Container{
		Name:       ContainerName,
		Image:      p.Image,
		Command:    command,
		Args:       args,
		WorkingDir: WorkspaceDir,
		Env:        []EnvVar{{Name: CacheEnv, Value: CacheDir}},
		VolumeMounts: []VolumeMount{
			{Name: "skill-cache", MountPath: CacheDir},
			{Name: "workspace", MountPath: WorkspaceDir},
		},
		SecurityContext: SecurityContext{AllowPrivilegeEscalation: ptr(false)},
	}
	if p.Secret != "" {
		if err := CheckSubdomain("secret", p.Secret); err != nil {
			return PodSpec{}, err
		}
		c.EnvFrom = []EnvFrom{{SecretRef: Ref{Name: p.Secret}}}
	}
	vols := []Volume{{Name: "skill-cache", EmptyDir: &EmptyDir{}}, {Name: "workspace", EmptyDir: &EmptyDir{}}}
	seen := map[string]bool{"skill-cache": true, "workspace": true}
	for _, s := range p.Skills {
		if len(s.Name) > 64 || !dnsLabel().MatchString(s.Name) {
			return PodSpec{}, fmt.Errorf("skill name %q is not a skill's name: lower-case letters, digits and '-', at most 64", s.Name)
		}
		if err := CheckPinned(s.Reference); err != nil {
			return PodSpec{}, fmt.Errorf("skill %s: %w", s.Name, err)
		}
		dir := s.MountDir()
		vol := volumeName(strings.ReplaceAll(strings.Trim(dir, "/"), "/", "-"))
		if seen[vol] {
			return PodSpec{}, fmt.Errorf("skill %s: two skills mounted at %s", s.Name, dir)
		}
		seen[vol] = true
		vols = append(vols, Volume{Name: vol, Image: &ImageVolume{Reference: s.Reference, PullPolicy: "IfNotPresent"}})
		c.VolumeMounts = append(c.VolumeMounts, VolumeMount{Name: vol, MountPath: dir, ReadOnly: true})
	}
	if o := p.Output; o != nil {
		if err := CheckSubdomain("claim", o.Name); err != nil {
			return PodSpec{}, err
		}
		vols = append(vols, Volume{Name: "output", PersistentVolumeClaim: &PersistentVolumeClaim{ClaimName: o.Name}})
		c.VolumeMounts = append(c.VolumeMounts, VolumeMount{Name: "output", MountPath: o.Path})
	}
	for i, m := range c.VolumeMounts {
		if !path.IsAbs(m.MountPath) || path.Clean(m.MountPath) != m.MountPath || m.MountPath == "/" {
			return PodSpec{}, fmt.Errorf("mount path %q is not a clean absolute folder", m.MountPath)
		}
		for _, o := range c.VolumeMounts[:i] {
			if within(m.MountPath, o.MountPath) || within(o.MountPath, m.MountPath) {
				return PodSpec{}, fmt.Errorf("mount paths %s and %s overlap", o.MountPath, m.MountPath)
			}
		}
	}
	return PodSpec{
		RestartPolicy:                "Never",
		AutomountServiceAccountToken: ptr(false),
		Containers:                   []Container{c},
		Volumes:                      vols,
	}, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// volumeName is v, or, past a DNS label's 63 characters, its start and
// the first 8 hex digits of its SHA-256, which keep two long names that
// start alike apart.
func volumeName(v string) string {
	if len(v) <= 63 {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	suffix := "-" + hex.EncodeToString(sum[:4])
	return strings.TrimRight(v[:63-len(suffix)], "-") + suffix
}

// The expressions are compiled when first used, so that a program that
// links the package and checks no name (agentskills audit) does not
// compile them as it starts.
var (
	dnsLabel   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`) })
	labelValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$`) })
	labelKey   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	})
	// image is a container image reference as the distribution
	// reference grammar writes one: a name of path components, a
	// registry host (with a port) first where there is one, a tag, a
	// digest.
	image = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?(:[0-9]+)?(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128}))?$`)
	})
	pinned = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$`) })
)

// CheckName checks that name is a DNS label (RFC 1123): what names a
// volume, a Job and an agent-sandbox object. what names it in the error.
func CheckName(what, name string) error {
	if len(name) > 63 || !dnsLabel().MatchString(name) {
		return fmt.Errorf("%s %q is not a Kubernetes name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63", what, name)
	}
	return nil
}

// CheckSubdomain checks that name is a DNS subdomain (RFC 1123): what
// names a Secret or a claim.
func CheckSubdomain(what, name string) error {
	if len(name) > 253 {
		return fmt.Errorf("%s %q is not a Kubernetes name: longer than 253", what, name)
	}
	for _, part := range strings.Split(name, ".") {
		if !dnsLabel().MatchString(part) {
			return fmt.Errorf("%s %q is not a Kubernetes name: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit", what, name)
		}
	}
	return nil
}

// CheckImage checks that ref is a container image reference:
// [HOST[:PORT]/]PATH[:TAG][@DIGEST], with no scheme.
func CheckImage(ref string) error {
	switch {
	case ref == "":
		return errors.New("no runner image")
	case strings.Contains(ref, "://"):
		return fmt.Errorf("image %q: an image reference has no scheme: write HOST/REPO:TAG", ref)
	case len(ref) > 4096 || !image().MatchString(ref):
		return fmt.Errorf("image %q is not an image reference: [HOST[:PORT]/]REPO[:TAG][@sha256:DIGEST]", ref)
	}
	return nil
}

// CheckPinned checks that ref is an image reference pinned by digest.
func CheckPinned(ref string) error {
	if err := CheckImage(ref); err != nil {
		return err
	}
	if !pinned().MatchString(ref) {
		return fmt.Errorf("image %q is not pinned by digest (@sha256:...)", ref)
	}
	return nil
}

// Encode writes objs to w as YAML documents separated by "---".
func Encode(w io.Writer, objs ...any) error {
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(o); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func ptr[T any](v T) *T { return &v }

// seconds is d in whole seconds, rounded up; nil for 0.
func seconds(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	s := int64((d + time.Second - 1) / time.Second)
	return &s
}

// ttl is d in whole seconds, rounded up, DefaultTTL for 0.
func ttl(d time.Duration) *int32 {
	if d == 0 {
		d = DefaultTTL
	}
	s := (d + time.Second - 1) / time.Second
	if s > 1<<31-1 {
		s = 1<<31 - 1
	}
	v := int32(s)
	return &v
}

func int32Of(what string, n int) (int32, error) {
	if n > 1<<31-1 {
		return 0, fmt.Errorf("%s %d is too large", what, n)
	}
	return int32(n), nil
}
