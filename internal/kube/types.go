package kube

// The objects' fields, named and ordered as the Kubernetes API names
// them; each type holds only the fields this package sets.

// Meta is an object's metadata.
type Meta struct {
	Name   string            `yaml:"name,omitempty"`
	Labels map[string]string `yaml:"labels,omitempty"`
}

// Job is a batch/v1 Job.
type Job struct {
	APIVersion string  `yaml:"apiVersion"`
	Kind       string  `yaml:"kind"`
	Metadata   Meta    `yaml:"metadata"`
	Spec       JobSpec `yaml:"spec"`
}

// JobSpec is a Job's spec.
type JobSpec struct {
	CompletionMode          string          `yaml:"completionMode,omitempty"`
	Completions             *int32          `yaml:"completions,omitempty"`
	Parallelism             *int32          `yaml:"parallelism,omitempty"`
	BackoffLimit            *int32          `yaml:"backoffLimit,omitempty"`
	BackoffLimitPerIndex    *int32          `yaml:"backoffLimitPerIndex,omitempty"`
	ActiveDeadlineSeconds   *int64          `yaml:"activeDeadlineSeconds,omitempty"`
	TTLSecondsAfterFinished *int32          `yaml:"ttlSecondsAfterFinished,omitempty"`
	Template                PodTemplateSpec `yaml:"template"`
}

// PodTemplateSpec is a Job's pod template.
type PodTemplateSpec struct {
	Metadata Meta    `yaml:"metadata"`
	Spec     PodSpec `yaml:"spec"`
}

// PodSpec is a pod's spec.
type PodSpec struct {
	RestartPolicy                string      `yaml:"restartPolicy"`
	ActiveDeadlineSeconds        *int64      `yaml:"activeDeadlineSeconds,omitempty"`
	AutomountServiceAccountToken *bool       `yaml:"automountServiceAccountToken"`
	Containers                   []Container `yaml:"containers"`
	Volumes                      []Volume    `yaml:"volumes"`
}

// Container is a pod's container.
type Container struct {
	Name            string          `yaml:"name"`
	Image           string          `yaml:"image"`
	Command         []string        `yaml:"command"`
	Args            []string        `yaml:"args"`
	WorkingDir      string          `yaml:"workingDir"`
	Env             []EnvVar        `yaml:"env,omitempty"`
	EnvFrom         []EnvFrom       `yaml:"envFrom,omitempty"`
	VolumeMounts    []VolumeMount   `yaml:"volumeMounts"`
	SecurityContext SecurityContext `yaml:"securityContext"`
}

// EnvVar is an environment variable with its value.
type EnvVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

// EnvFrom takes environment variables from a Secret.
type EnvFrom struct {
	SecretRef Ref `yaml:"secretRef"`
}

// Ref names another object: a Secret, a template, a warm pool.
type Ref struct {
	Name string `yaml:"name"`
}

// VolumeMount mounts a volume in a container.
type VolumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

// SecurityContext is a container's security context.
type SecurityContext struct {
	AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
}

// Volume is a pod's volume: one of its sources is set.
type Volume struct {
	Name                  string                 `yaml:"name"`
	EmptyDir              *EmptyDir              `yaml:"emptyDir,omitempty"`
	Image                 *ImageVolume           `yaml:"image,omitempty"`
	PersistentVolumeClaim *PersistentVolumeClaim `yaml:"persistentVolumeClaim,omitempty"`
}

// EmptyDir is an emptyDir volume source.
type EmptyDir struct{}

// ImageVolume is an image volume source (KEP-4639).
type ImageVolume struct {
	Reference  string `yaml:"reference"`
	PullPolicy string `yaml:"pullPolicy"`
}

// PersistentVolumeClaim is a volume source that names a claim.
type PersistentVolumeClaim struct {
	ClaimName string `yaml:"claimName"`
}

// SandboxTemplate is agent-sandbox's SandboxTemplate.
type SandboxTemplate struct {
	APIVersion string              `yaml:"apiVersion"`
	Kind       string              `yaml:"kind"`
	Metadata   Meta                `yaml:"metadata"`
	Spec       SandboxTemplateSpec `yaml:"spec"`
}

// SandboxTemplateSpec is a SandboxTemplate's spec.
type SandboxTemplateSpec struct {
	PodTemplate SandboxPodTemplate `yaml:"podTemplate"`
}

// SandboxPodTemplate is a SandboxTemplate's pod: its metadata holds
// labels and annotations alone.
type SandboxPodTemplate struct {
	Metadata Meta    `yaml:"metadata"`
	Spec     PodSpec `yaml:"spec"`
}

// SandboxWarmPool is agent-sandbox's SandboxWarmPool.
type SandboxWarmPool struct {
	APIVersion string              `yaml:"apiVersion"`
	Kind       string              `yaml:"kind"`
	Metadata   Meta                `yaml:"metadata"`
	Spec       SandboxWarmPoolSpec `yaml:"spec"`
}

// SandboxWarmPoolSpec is a SandboxWarmPool's spec.
type SandboxWarmPoolSpec struct {
	Replicas           *int32 `yaml:"replicas"`
	SandboxTemplateRef Ref    `yaml:"sandboxTemplateRef"`
}

// SandboxClaim is agent-sandbox's SandboxClaim.
type SandboxClaim struct {
	APIVersion string           `yaml:"apiVersion"`
	Kind       string           `yaml:"kind"`
	Metadata   Meta             `yaml:"metadata"`
	Spec       SandboxClaimSpec `yaml:"spec"`
}

// SandboxClaimSpec is a SandboxClaim's spec.
type SandboxClaimSpec struct {
	WarmPoolRef Ref               `yaml:"warmPoolRef"`
	Lifecycle   *SandboxLifecycle `yaml:"lifecycle,omitempty"`
}

// SandboxLifecycle is a SandboxClaim's lifecycle.
type SandboxLifecycle struct {
	TTLSecondsAfterFinished *int32 `yaml:"ttlSecondsAfterFinished,omitempty"`
}
