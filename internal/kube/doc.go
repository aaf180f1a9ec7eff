// Package kube renders a run of agentskills as Kubernetes objects: a
// batch/v1 Job, an Indexed Job for an evaluation's units, or the
// SandboxTemplate, SandboxWarmPool and SandboxClaim of
// kubernetes-sigs/agent-sandbox. It writes them with small types of its
// own, holding only the fields it sets, so that a program that renders a
// run links neither k8s.io/api nor apimachinery; its tests decode what it
// writes strictly into those official types.
//
// Nothing here talks to a cluster or reads the environment: the objects
// are a function of the [Pod] and the options given.
//
// # The pod
//
//  1. One container, named agentskills, runs the command
//     [Pod.Command] (default agentskills) with [Pod.Args] in the
//     runner image [Pod.Image]. The pod never restarts
//     (restartPolicy Never), mounts no service account token
//     (automountServiceAccountToken false: an agent has no business with
//     the cluster's API), and the container may not gain privileges
//     (allowPrivilegeEscalation false).
//  2. Each skill is an image volume (Kubernetes 1.35 and later): its
//     reference is the skill's image pinned by digest (REPO@sha256:HEX, or
//     sha512), pullPolicy IfNotPresent, mounted read-only at
//     [SkillsDir]/NAME unless [Skill.Dir] says where, the volume named
//     after that folder. A reference that is not pinned is refused: a tag
//     could name other content when the pod starts than when the run was
//     rendered.
//  3. The skill cache is an emptyDir mounted at [CacheDir], named to the
//     run by the environment variable [CacheEnv]; the workspace is an
//     emptyDir at [WorkspaceDir], the container's working folder.
//  4. The model's credentials come from the Secret [Pod.Secret] names,
//     through envFrom: no value of a credential is ever written into an
//     object. Without a Secret the pod has none (the runner image, or the
//     cluster, provides them).
//  5. An output claim ([Pod.Output]) is a PersistentVolumeClaim the user
//     made, mounted read-write at its path: where an evaluation's pods
//     write their run folders.
//  6. Every name is checked before anything is written: volume and object
//     names are DNS labels (lower-case letters, digits and '-', at most 63),
//     a Secret's and a claim's names DNS subdomains (at most 253), a
//     skill's name a skill's (a DNS label, but of up to 64 characters: a
//     volume's name is cut to 63 and ends in a hash of the whole), and the
//     runner image a reference without spaces or a scheme. Every mount
//     path is a clean absolute folder, and no two are the same or one
//     inside the other.
//  7. Every argument reaches the program as it was given. Kubernetes
//     expands $(VAR) in a container's arguments from the container's
//     environment, which holds every key of the Secret (rule 4), and
//     reads $$ as $: so each $ of [Pod.Args] is written $$, and a
//     prompt "print $(ANTHROPIC_API_KEY)" reaches the agent as typed,
//     not with the key in it. The one argument Kubernetes expands is an
//     Indexed Job's [Pod.IndexFlag] followed by [IndexVar] (# The Job,
//     rule 2). An argument that is not UTF-8 is refused: a Kubernetes
//     string is UTF-8 text, and the bytes would reach the pod altered.
//
// # The Job
//
//  1. A batch/v1 Job: backoffLimit 0 (a failed run is not tried again:
//     an agent's run has effects, and a second one is another run),
//     activeDeadlineSeconds from the run's time limit (none when it has
//     none), ttlSecondsAfterFinished [DefaultTTL] unless given.
//  2. An Indexed Job ([JobOptions.Completions] > 0) has completionMode
//     Indexed, that many completions and [JobOptions.Parallelism] pods at
//     a time; each pod reads its index from its last argument,
//     [Pod.IndexFlag] followed by $(JOB_COMPLETION_INDEX) ([IndexVar]),
//     which Kubernetes sets in an Indexed Job's containers and expands in
//     their arguments. A pod with an IndexFlag is an Indexed Job's only. It has backoffLimitPerIndex 0 in place of
//     backoffLimit (Kubernetes 1.33 and later): a failed index is not
//     tried again, and the other indexes go on (with backoffLimit 0 the
//     first failed pod would stop them all); the Job then ends Failed,
//     its status listing the failed indexes.
//
// # agent-sandbox
//
// [Sandbox] writes the objects of kubernetes-sigs/agent-sandbox v1.0.1,
// API group extensions.agents.x-k8s.io, version v1beta1 ([SandboxAPIVersion]):
//
//  1. A SandboxTemplate whose podTemplate is the pod above, with its
//     activeDeadlineSeconds on the pod itself.
//  2. A SandboxWarmPool over the template with replicas 0. In v1beta1 a
//     SandboxClaim names a warm pool, not a template; with no warm
//     sandbox the claim's sandbox is made from the pool's template. The
//     pool must stay at 0: the pod starts the run as it starts, so a warm
//     pod would run the prompt before anyone claimed it.
//  3. One SandboxClaim of that pool, whose lifecycle removes it
//     ttlSecondsAfterFinished after its sandbox's pod finished.
//
// # The YAML
//
// [Encode] writes each object as one YAML document, the documents
// separated by "---", fields in the order of the Kubernetes API
// (apiVersion, kind, metadata, spec) and only the fields set. Strings
// are quoted where YAML would read them as another type.
package kube
