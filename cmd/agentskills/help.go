package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// maxHelpLines bounds what a command's help says before its usage line:
// a few lines, where to read more, then the usage, the examples and the
// flags (TestHelpIsShort).
const maxHelpLines = 12

// referenceAnnotation is the key, in a command's Annotations, of its
// reference: the whole of what it does, which its page in docs/cli shows
// (docCommand) and its help leaves out.
const referenceAnnotation = "agentskills-reference"

// guideAnnotation is the key, in a command's Annotations, of the guide in
// docs/ that tells more of it.
const guideAnnotation = "agentskills-guide"

// helpTopic is what one command's help says before its usage line.
type helpTopic struct {
	// summary says in a few lines what the command does; "" keeps the
	// command's own text, which is short already.
	summary string
	// guide is the guide in docs/ that tells more.
	guide string
}

// helpTopics is the help of each command, by its path below agentskills
// ("" for agentskills itself).
var helpTopics = map[string]helpTopic{
	"": {summary: `agentskills checks Agent Skills, folders holding a SKILL.md, as the
Agent Skills reference validator does, and installs them into coding
agents' skill folders reproducibly, with a lock file; it runs an agent
with exactly the skills given, and checks who published a skill and what
it does.

Exit codes: 0 success, 1 a check failed, 2 bad usage or input, 124 a run
stopped by --run-timeout, 130 interrupted.`, guide: "README.md"},
	"add": {summary: `Add installs the skills of each SOURCE into the agents' skill folders:
one canonical copy under .agents/skills, a link from each agent's folder,
and a record in .agents/agentskills.lock. A SOURCE is a folder, an
archive or its URL (#sha256=HEX pins it), a GitHub repository
(OWNER/REPO[/PATH][@REF or @RANGE]), any git repository (git+https://...),
or an OCI artifact (oci://HOST/REPO:TAG); published sources are pinned.
Skills are checked, audited and held to the trust policy first.`, guide: "docs/installing.md"},
	"remove": {summary: `Remove removes the named skills for every agent (or --agent's), only what
it installed. A skill edited since, or one other installed skills
require, is kept (exit 1) unless --force (an edit goes to .agents/backups
first); skills installed only because a removed one required them go
with it, as no longer required. A skill the policy requires is never
removed.`, guide: "docs/installing.md"},
	"list": {summary: `List shows each skill in the folders the agents read: its state
(installed, modified, missing, external or source; "(required)" when the
policy requires it), every agent that reads it there, and, when skills
require others, which installed skills require it ("(dependency)":
installed only because they do). --json: one entry per skill and agent.`, guide: "docs/installing.md"},
	"agents": {guide: "docs/installing.md"},
	"verify": {summary: `Verify re-hashes every installed skill against .agents/agentskills.lock
and exits 1 listing what differs (modified, missing), each skill that
requires one not installed, and each skill the policy requires that is
missing or out of its range; it also checks what is recorded against the
trust rules (policy, recorded signers, audit), exit 1 with each refusal.`, guide: "docs/installing.md"},
	"validate":        {summary: "Validate checks each skill folder (or its SKILL.md) with the rules and\nmessages of the Agent Skills reference validator; --lenient reads it as\nagents load it, and what they accept is a warning.", guide: "docs/installing.md"},
	"read-properties": {summary: "Read-properties prints the front matter of a skill folder (or its\nSKILL.md) as indented JSON, byte for byte as the reference's\nread-properties does.", guide: "docs/installing.md"},
	"prompt":          {guide: "docs/installing.md"},
	"sync": {summary: `Sync installs again every skill .agents/agentskills.lock records, from
its recorded source and pin, for its recorded agents, repairing what is
missing or broken; everything is checked before anything changes. With
--frozen, as npm ci, it never records anything new.`, guide: "docs/installing.md"},
	"import": {summary: `Import carries over the skills the npm skills tool (skills-lock.json) or
'gh skill install' recorded, adding each from its source as add does,
for the agents whose folders already hold it; what cannot be carried
over is listed with why. --dry-run shows the plan.`, guide: "docs/installing.md"},
	"find": {summary: `Find searches, in one ranked list, the web indexes and OCI registries of
~/.agents/agentskills.yaml (and --index, --registry) and GitHub, and
shows each skill's name, description, place and the command that
installs it.`, guide: "docs/installing.md"},
	"outdated": {summary: `Outdated checks every skill the lock file records against what its
source names now, and changes nothing. It exits 1 when something is
outdated, as npm outdated does.`, guide: "docs/versions.md"},
	"update": {summary: `Update moves the pins of the installed skills (every one, or the NAMEs
given) to what their sources name now, a version range within its range,
and installs the new content, printing each pin move and the files that
change; --dry-run changes nothing. The checks of add apply. --eval first
evaluates the new content against the pinned one and refuses a drop.`, guide: "docs/versions.md"},
	"audit": {summary: `Audit reads every file of a skill, locally, and reports what malicious
skills do (hidden Unicode, download and run, credential reads,
exfiltration, ...), each finding with its rule, severity, file and line.
With no argument it audits the skills the agents read; it exits 1 when a
finding reaches --fail-on.`, guide: "docs/trust.md"},
	"policy": {summary: `The trust policy is read from the user's ~/.agents/agentskills.policy.yaml
and the project's .agents/agentskills.policy.yaml; the project's can only
tighten the user's, and either may extend a file its team publishes
(extends: SOURCE), which it can only tighten. show prints the effective
policy and where each rule comes from; check says whether a source passes.`, guide: "docs/team-policy.md"},
	"policy export": {summary: "Export writes the signers rules of the trust policy as an admission policy\nfor a cluster (--format policy-controller or kyverno), so that pods mount\nskill images only when they are signed as the policy requires.", guide: "docs/trust.md"},
	"policy show":   {summary: "Show prints the effective trust policy: the user's file, the project's and\nthe files each extends (pinned in the lock file), each rule with its file,\nline and extends chain; --json for a program.", guide: "docs/trust.md"},
	"policy check":  {summary: "Check says, for each SOURCE written as add takes it, whether the trust\npolicy allows it and which rule of which file says so, and what else it\nrequires of it (a pin, signers, the audit threshold).", guide: "docs/trust.md"},
	"run": {summary: `Run runs a coding agent once, headless, with exactly the skills of each
--skill SOURCE mounted for this run; nothing is installed. PROMPT "-"
reads it from standard input. The environment passes through to the
agent (its login, its model settings: see "Pointing an agent at a model
provider" in docs/agents.md). --resume continues a session; --json
prints every event as a JSON line.`, guide: "docs/agents.md"},
	"eval": {summary: `Eval runs a skill's evals/evals.json cases on each --agent, with the
skill and without it (or --baseline lock: the version the lock file
pins), grades them, and prints pass rates, the delta with its 95%
interval, time and tokens per agent; evals/eval_queries.json gives
trigger precision and recall. Finished runs are kept: the same command
resumes. --json prints one JSON document.`, guide: "docs/eval.md"},
	"push": {summary: `Push publishes the skill in the folder DIR to an OCI registry under a
tag, reproducibly, as an image a container runtime mounts (--format
artifact: the earlier artifact), and prints the digest the tag names:
the pin to install it by. --sign-key signs it as sign does.`, guide: "docs/publishing.md"},
	"sign": {summary: `Sign signs the skill's manifest or image index that the pinned
reference names with the private key KEY, as cosign 3 does, and attaches
the signature in the registry; "agentskills add --key" and "cosign
verify --key" accept it.`, guide: "docs/publishing.md"},
	"index": {summary: `Index writes OUT/.well-known/agent-skills/index.json, the Agent Skills
discovery index, and the files it names, for the skills in DIR; served
from a website, "agentskills add https://SITE" installs from it.`, guide: "docs/publishing.md"},
	"cache": {summary: `The skill cache holds every skill taken from an archive, by content
digest, and the skill mounts and agent homes run keeps per skill set.
Its root is $AGENT_ADAPTOR_SKILL_CACHE_ROOT, else the user's cache folder.`, guide: "docs/installing.md"},
	"completion": {guide: "docs/installing.md"},
	"completion bash": {summary: `Generate the autocompletion script for bash (it needs the bash-completion
package). In this shell: source <(agentskills completion bash); for every
new session, write it once to /etc/bash_completion.d/agentskills (macOS:
$(brew --prefix)/etc/bash_completion.d/agentskills).`, guide: "docs/installing.md"},
	"completion zsh": {summary: `Generate the autocompletion script for zsh (with compinit in ~/.zshrc).
In this shell: source <(agentskills completion zsh); for every new
session, write it once to "${fpath[1]}/_agentskills" (macOS:
$(brew --prefix)/share/zsh/site-functions/_agentskills).`, guide: "docs/installing.md"},
	"completion fish": {summary: `Generate the autocompletion script for fish. In this shell:
agentskills completion fish | source; for every new session, write it
once to ~/.config/fish/completions/agentskills.fish.`, guide: "docs/installing.md"},
	"completion powershell": {summary: `Generate the autocompletion script for PowerShell. In this shell:
agentskills completion powershell | Out-String | Invoke-Expression; for
every new session, add that output to your PowerShell profile.`, guide: "docs/installing.md"},
	"cache dir":  {guide: "docs/installing.md"},
	"cache list": {guide: "docs/installing.md"},
	"cache gc": {summary: `gc removes the skill mounts and agent homes no run has used for
--older-than (and the sessions an agent home holds), never one a running
agent uses, then the cached skills and audit reports as old that nothing
left links to.`, guide: "docs/installing.md"},
	"cache clear": {summary: `Clear removes every cached skill, skill mount and agent home that no
running agent uses, with the sessions those homes hold. It asks first on
a terminal; -y removes without asking.`, guide: "docs/installing.md"},
}

// shortenHelp gives each command of root's tree its help of helpTopics:
// the summary, then where to read more: the guide, and its whole text
// (referenceAnnotation), which "agentskills help CMD" prints, as "git
// help CMD" prints more than "git CMD -h", and its page in docs/cli
// shows.
func shortenHelp(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")
		if topic, ok := helpTopics[path]; ok {
			page := "docs/cli/" + strings.ReplaceAll(cmd.CommandPath(), " ", "_") + ".md"
			whole := "'" + strings.Replace(cmd.CommandPath(), root.Name(), root.Name()+" help", 1) + "'"
			if cmd.Annotations == nil {
				cmd.Annotations = map[string]string{}
			}
			cmd.Annotations[referenceAnnotation] = cmd.Long
			cmd.Annotations[guideAnnotation] = topic.guide
			more := "More in " + topic.guide + "; all of it in " + whole + "\nand " + page + "."
			if topic.summary == "" {
				cmd.Long += "\n\n" + more
			} else {
				cmd.Long = topic.summary + "\n\n" + more
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	root.InitDefaultHelpCmd()
	for _, help := range root.Commands() {
		if help.Name() == "help" {
			help.Short = "Help about any command, all of it"
			help.Long = "Help prints all the help of a command, which its --help shortens."
			help.Run = nil
			help.RunE = func(_ *cobra.Command, args []string) error {
				cmd, rest, err := root.Find(args)
				if err != nil || len(rest) > 0 {
					return usageErrorf("unknown help topic %q", strings.Join(args, " "))
				}
				cmd.Long = reference(cmd)
				cmd.InitDefaultHelpFlag()
				cmd.InitDefaultVersionFlag()
				return cmd.Help()
			}
		}
	}
}

// reference is cmd's whole text: its reference and the guide that tells
// more, else its help's.
func reference(cmd *cobra.Command) string {
	if r, ok := cmd.Annotations[referenceAnnotation]; ok {
		return r + "\n\nMore in " + cmd.Annotations[guideAnnotation] + "."
	}
	return cmd.Long
}
