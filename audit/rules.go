package audit

// The rule ids, as the package doc numbers them.
const (
	ruleUnicodeTag          = "unicode-tag"
	ruleBidiControl         = "bidi-control"
	ruleZeroWidth           = "zero-width"
	ruleTerminalEscape      = "terminal-escape"
	ruleDownloadExec        = "download-exec"
	rulePrerequisiteInstall = "prerequisite-install"
	ruleObfuscatedExec      = "obfuscated-exec"
	ruleReverseShell        = "reverse-shell"
	ruleCredentialRead      = "credential-read"
	ruleSecretStoreRead     = "secret-store-read"
	ruleExfiltration        = "exfiltration"
	ruleFileUpload          = "file-upload"
	ruleInstructionOverride = "instruction-override"
	ruleConcealFromUser     = "conceal-from-user"
	ruleQuotedInjection     = "quoted-injection"
	ruleExecutableBinary    = "executable-binary"
	ruleExecBit             = "exec-bit"
	ruleBinaryFile          = "binary-file"
	ruleSymlink             = "symlink"
	ruleLargeFile           = "large-file"
	ruleAttackExample       = "attack-example"
	ruleMalformedText       = "malformed-text"
	ruleDirectRun           = "direct-run"
)

// ruleIDs are the rule ids in the package doc's order; a rule's index
// there (ruleIndex) numbers it where the audit counts findings by rule.
var ruleIDs = [numRules]string{
	ruleUnicodeTag, ruleBidiControl, ruleZeroWidth, ruleTerminalEscape, ruleDownloadExec, rulePrerequisiteInstall,
	ruleObfuscatedExec, ruleReverseShell, ruleCredentialRead, ruleSecretStoreRead, ruleExfiltration, ruleFileUpload,
	ruleInstructionOverride, ruleConcealFromUser, ruleQuotedInjection, ruleExecutableBinary, ruleExecBit,
	ruleBinaryFile, ruleSymlink, ruleLargeFile, ruleAttackExample, ruleMalformedText, ruleDirectRun,
}

// numRules is how many rules there are.
const numRules = 23

// ruleIndex returns the index of rule id in ruleIDs. An id of no rule
// is a fault of the audit's own.
func ruleIndex(id string) int {
	switch id {
	case ruleUnicodeTag:
		return 0
	case ruleBidiControl:
		return 1
	case ruleZeroWidth:
		return 2
	case ruleTerminalEscape:
		return 3
	case ruleDownloadExec:
		return 4
	case rulePrerequisiteInstall:
		return 5
	case ruleObfuscatedExec:
		return 6
	case ruleReverseShell:
		return 7
	case ruleCredentialRead:
		return 8
	case ruleSecretStoreRead:
		return 9
	case ruleExfiltration:
		return 10
	case ruleFileUpload:
		return 11
	case ruleInstructionOverride:
		return 12
	case ruleConcealFromUser:
		return 13
	case ruleQuotedInjection:
		return 14
	case ruleExecutableBinary:
		return 15
	case ruleExecBit:
		return 16
	case ruleBinaryFile:
		return 17
	case ruleSymlink:
		return 18
	case ruleLargeFile:
		return 19
	case ruleAttackExample:
		return 20
	case ruleMalformedText:
		return 21
	case ruleDirectRun:
		return 22
	}
	panic("audit: no rule " + id)
}

// allRules returns every rule, in the package doc's order.
func allRules() []Rule {
	return []Rule{
		{ruleUnicodeTag, Critical,
			"Unicode tag characters: text that is invisible to a reader but read by the model",
			"Tag characters (U+E0000-U+E007F) render as nothing, yet a model reads them as text: they are used to smuggle instructions past a review. Remove them; no skill needs them outside a flag emoji."},
		{ruleBidiControl, High,
			"bidirectional override or isolate: text that displays in another order than it is read",
			"Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) make a reviewer see text in another order than the model or the shell reads it. Remove them; right-to-left text does not need them."},
		{ruleZeroWidth, High,
			"zero-width characters hiding a message or splitting a word",
			"A run of zero-width or other invisible characters can encode a hidden message, and one inside a word hides that word from a search. Remove them and read the text again."},
		{ruleTerminalEscape, High,
			"terminal escape sequence or control character in a text file",
			"Raw escape sequences (ESC, CSI, OSC including OSC 8 links), backspaces and lone carriage returns can hide or rewrite text when the file is shown in a terminal. Look at the file with an editor that shows control characters, and remove them."},
		{ruleDownloadExec, Medium,
			"code downloaded and run in one step (curl | sh, iex (iwr ...), install from a URL)",
			"Running what a URL serves gives its owner, today or later, the agent's shell. Honest installers are documented this way; check the URL is the tool's official one, and prefer a package manager or a pinned, checksummed download."},
		{rulePrerequisiteInstall, High,
			"a program to download and run presented as the skill's prerequisite, or hidden",
			"Malicious skills tell the agent or the user to install a \"required\" helper from a URL (often an archive with a password, a bare IP or a paste site) before the skill works: that helper is the malware. Do not run it; a real skill names a well-known tool and its official installer."},
		{ruleObfuscatedExec, High,
			"encoded or hidden code run in one step (base64 -d | sh, -EncodedCommand, a hidden window)",
			"Decoding and running a payload, or running PowerShell in a hidden window, runs code that nobody reviewing the skill could read. Decode it to see what it does; an honest skill writes its commands in the clear."},
		{ruleReverseShell, Critical,
			"a shell given to a remote host (/dev/tcp, nc -e, socat exec)",
			"A reverse shell hands control of the machine to whoever listens at that address. Do not install the skill."},
		{ruleCredentialRead, Medium,
			"a credential store's path (~/.ssh, ~/.aws/credentials, .env, ~/.netrc, ...)",
			"A skill that names credential files may only tell the user where to configure a tool, or may read them. Check what it does with them."},
		{ruleSecretStoreRead, High,
			"a read of secrets no skill needs: browser passwords and cookies, the keychain, wallets, private SSH keys",
			"Browser profiles, the macOS keychain, cryptocurrency wallets and private SSH keys are what info-stealers collect. Do not install the skill."},
		{ruleExfiltration, High,
			"secrets or the environment sent to the network, or data sent to a drop host",
			"Posting credential files or the environment to a URL, or anything to a webhook, paste or tunnel host, is how stolen secrets leave the machine. Do not install the skill."},
		{ruleFileUpload, Low,
			"a local file posted to a URL",
			"Uploading a file is common in API documentation; check which file and where it goes."},
		{ruleInstructionOverride, High,
			"an instruction to ignore previous or system instructions",
			"\"Ignore previous instructions\" and its variants are prompt injection: they try to replace the user's and the agent's rules. Do not install the skill."},
		{ruleConcealFromUser, High,
			"an instruction to hide what the agent does from the user",
			"A skill that tells the agent not to tell the user, or to act without the user knowing, wants something the user would refuse. Do not install the skill."},
		{ruleQuotedInjection, Medium,
			"an injection phrase quoted in code, quotation marks or a table of such phrases",
			"The phrase is quoted, as in a skill that teaches about prompt injection; check that it is an example and not an instruction."},
		{ruleExecutableBinary, High,
			"a native program (ELF, Mach-O, PE) in the skill",
			"A compiled program cannot be reviewed, and an agent may run it. Ship scripts, or install the program from its official source."},
		{ruleExecBit, Low,
			"an executable file that is neither a script nor a program",
			"A file with an executable bit and no #! line is odd; check what it is."},
		{ruleBinaryFile, Info,
			"a file that is not text, not scanned",
			"The audit reads text; this file (an image, an archive, a document) was not scanned. Check that the skill needs it."},
		{ruleSymlink, High,
			"a symbolic link or special file in the skill",
			"A link can lead the agent, or a tool that follows it, out of the skill (to ~/.ssh, say); a skill needs none. Replace it with the file it points to."},
		{ruleLargeFile, High,
			"a file far larger than instructions need (SKILL.md over 1 MiB, any file over 8 MiB)",
			"Oversized instructions drown a review or the model's context, and a huge file is not scanned. Check why the skill needs it."},
		{ruleAttackExample, Medium,
			"an attack shown inert, as security documentation writes it: aimed at a placeholder host, its encoded payload elided, quoted in a sample report",
			"Security skills document attacks with placeholder hosts (attacker.com, ATTACKER_IP), encoded payloads cut short or aimed at such hosts, findings quoted in a sample report, and hidden characters named where they are shown. Check the skill is about security and that nothing tells the agent to run these examples."},
		{ruleMalformedText, High,
			"a NUL byte in a file that says it is text (Markdown, a script, a #! file, YAML, JSON, HTML)",
			"A NUL byte makes viewers and diff tools show such a file as binary, or cut it short, while a shell or a model still reads what follows. A skill's text needs none: remove it and read the whole file again."},
		{ruleDirectRun, Low,
			"a program of the skill run by its path (./scripts/x.sh), which fails where the skill is mounted noexec",
			"A skill mounted as an image volume (Kubernetes mounts an OCI image read-only, and may mount it noexec) cannot run its files by their path. Run a script through its interpreter: bash scripts/x.sh, python3 scripts/x.py, node scripts/x.js."},
	}
}
