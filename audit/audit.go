// Package audit checks a skill's whole tree, locally and deterministically,
// for the patterns published malicious skills use: hidden or deceptive
// Unicode, terminal escapes, download-and-execute, "prerequisite" installs
// from a URL, credential reads, exfiltration, instruction overrides,
// executables and binaries, links, and files larger than instructions need.
//
// An agent reads a skill's SKILL.md as instructions and runs its scripts
// with the user's shell and credentials, so the audit reads every file of
// the tree, not only SKILL.md. It needs no network and no model: the same
// tree always gives the same findings, in the same order (by file, line,
// rule), and a finding names its rule, severity, file, line and an excerpt
// in which control and invisible characters are written as escapes (\x1b,
// \u202e), so printing it is safe and shows what is hidden. A finding's
// file is the path as it is in the tree; print it through [Escape], since
// a file name too can hold a newline or an escape.
//
// # Rules
//
// Each rule has an id (used by findings, SARIF, --allow-risk and
// policies), and one severity: a shape that honest skills also use is a
// rule of its own at medium or below, and the same shape in the context
// malicious skills give it is a second rule at high or above. The default
// threshold that blocks (agentskills audit --fail-on, the policy's) is
// high.
//
//  1. unicode-tag (critical): a Unicode tag character (U+E0000-U+E007F)
//     anywhere in a text file. Tags render as nothing and models read them
//     as text: the "ASCII smuggling" of hidden instructions. The one honest
//     use, the tag sequence of a subdivision flag emoji (U+1F3F4 followed
//     by tag letters and U+E007F), is not a finding.
//  2. bidi-control (high): a bidirectional embedding, override or isolate
//     (U+202A-U+202E, U+2066-U+2069). They reorder what a reviewer sees
//     against what the model and the shell read ("Trojan Source").
//     Right-to-left text itself, and the marks U+200E, U+200F and U+061C,
//     are not findings: an i18n skill's examples are safe.
//  3. zero-width (high): three or more invisible characters in a row
//     (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+180E, U+00AD, U+034F, and
//     the variation selectors U+FE00-U+FE0F and U+E0100-U+E01EF, which
//     can carry bytes after an emoji), the shape of a message encoded in zero-width characters, or one of
//     them inside an ASCII word, which splits a word so that a reviewer's
//     search misses it. A zero-width joiner or non-joiner between two
//     non-ASCII characters (emoji sequences, Persian and Indic text) and a
//     byte-order mark at the start of a file are not findings. The other
//     text rules read each line with these characters removed, so a split
//     phrase is still found. One of them inside a word that a Markdown
//     line shows between a matching pair of quotation marks or backticks,
//     on a line that names such characters ("zero-width", "invisible",
//     U+200B, ZWSP), is rule 21's: the documentation of the trick.
//  4. terminal-escape (high): a raw escape sequence (ESC followed by [, ],
//     P, X, ^, _, a character-set or cursor command: CSI, OSC including OSC
//     8 links, DCS), a C1 control (U+0080-U+009F), a backspace, or a
//     carriage return inside a line, in a text file: they hide text on a
//     terminal (conceal, cursor moves, overwriting), rewrite what cat or a
//     diff shows, or link text to another target. An escape written as
//     text ("\033[0;32m" in a script), CRLF line ends, and an ESC before
//     anything else (which a terminal does not act on; one real skill
//     has them as mis-encoded arrows) are not findings.
//  5. download-exec (medium): code fetched from the network and run in one
//     step: curl or wget piped to a shell or an interpreter, bash <(curl
//     ...), sh -c "$(curl ...)", python -c "$(curl ...)", PowerShell iex
//     of iwr, Invoke-WebRequest, Net.WebClient or irm; and a package
//     installed from a URL or a git URL (pip install git+https://...,
//     npm install https://...). Honest skills document installers this way,
//     so alone it is medium. It stays medium when the only wording that
//     would make it rule 6's (a password, a prerequisite) comes with a
//     confirmation the user gives before it runs (see "Examples and
//     confirmations").
//  6. prerequisite-install (high): rule 5's shape, or a link to a program
//     or an archive (.exe .msi .dmg .pkg .zip .7z .rar .scr .bat .ps1
//     .appimage .jar), that a skill presents the way the fake-prerequisite
//     campaigns did: a password for the archive; a bare IP address, plain
//     http, or a paste or file-drop host as the source; an instruction in
//     an HTML comment (hidden from the rendered page); or, on that line or
//     the three before it, the wording that makes installing it a
//     condition of the skill ("before using this skill", "this skill
//     requires ... to be installed", "this skill needs the X helper",
//     "you must first install/run/download"). A "Prerequisites" heading
//     alone is not such wording: honest skills have one above their
//     official installers. A command of rule 5's shape (not a link to a
//     program or an archive) that only the wording makes rule 6's, and
//     that is offered behind the user's confirmation, is rule 5's.
//  7. obfuscated-exec (high): code decoded and run in one step (echo ... |
//     base64 -d | sh, eval "$(echo ... | base64 --decode)", python exec of
//     b64decode (urlsafe_b64decode too), PowerShell -EncodedCommand /
//     -enc with a payload,
//     FromBase64String into iex), and PowerShell run with a hidden window
//     (-WindowStyle Hidden, -w hidden): ways to run what a reviewer cannot
//     read. A decode whose every payload is shown, and shown inert, is
//     rule 21's (see "Examples and confirmations").
//  8. reverse-shell (critical): a shell given to a remote host: /dev/tcp/
//     or /dev/udp/ redirections, nc or ncat with -e or -c, socat with exec
//     or system, an interactive shell piped to nc.
//  9. credential-read (medium): a path of a credential store: ~/.ssh,
//     ~/.aws/credentials or config, ~/.config/gcloud, ~/.azure, ~/.kube/config,
//     ~/.netrc, ~/.git-credentials, ~/.docker/config.json, ~/.npmrc,
//     ~/.pypirc, .env files (not .env.example, .env.sample, .env.template).
//     Honest skills name them to tell a user where to configure something.
//  10. secret-store-read (high): the stores that no skill's task needs:
//     browser profiles' passwords and cookies (Login Data, Cookies, Web
//     Data, Local State under a browser or profile folder; key4.db,
//     logins.json, cookies.sqlite under a Firefox profile), the macOS
//     keychain read by the security tool (dump-keychain,
//     find-generic-password or find-internet-password with -w or -g),
//     cryptocurrency wallets (wallet.dat, Exodus, Electrum, MetaMask's
//     extension id), private SSH keys read (cat/cp/base64 of ~/.ssh/id_*),
//     an archive or copy of ~/.ssh, ~/.aws or ~/.gnupg, and a search of
//     the disk for .env files (find ... -name .env, a glob of .env). On a
//     line of a Markdown code block after a report's label alone
//     ("Pattern:", "Match:", "Evidence:", "Example:"), in a block that
//     is a sample report quoting a finding, it is rule 21's.
//  11. exfiltration (high): data sent to the network where the data is a
//     secret or the environment (env, printenv, ~/.ssh, .env, credentials,
//     cookies, keychains, wallets, $AWS_..., a token variable) or the
//     destination is a drop host (webhook.site, requestbin, pipedream,
//     ngrok, pastebin, transfer.sh, Discord webhooks, the Telegram bot
//     API, interactsh, Burp Collaborator): curl -d/--data*/-F/-T with a
//     file, wget --post-file, nc host port < file, Invoke-RestMethod
//     -InFile, env | curl. What a command sends is looked for within 200
//     bytes of it, so a long line (a JSON string holding a document) is
//     not read as one command.
//  12. file-upload (low): a local file posted to a URL (curl -d @file, -F
//     field=@file, -T file, wget --post-file) that rule 11 does not match:
//     every API's documentation does it; the reviewer may want to know.
//  13. instruction-override (high): the classic injection phrases in
//     instruction text: ignore, disregard or forget the previous, prior,
//     above or system instructions; "your new system prompt", "new system
//     prompt:"; "you are now in developer mode". In a fenced code block of Markdown, a line of a
//     script, between a matching pair of backticks or quotation marks
//     on its line (a skill that teaches about injections quotes them), or
//     as the whole of a cell of a Markdown table in a column whose header
//     names phrases (a catalogue names the phrases it lists; see
//     "Examples and confirmations") it is reported as quoted-injection
//     (medium) instead. A lone quotation
//     mark before it does not quote it, and a YAML or HTML file is read
//     as prose.
//  14. conceal-from-user (high): instructions to hide the agent's actions
//     from the user: do not tell, mention, inform, notify, reveal or
//     disclose (this) to the user, where the phrase ends the clause or goes
//     on with "that", "what", "you" or "about this/the command/script/...";
//     hide this from the user; without the user knowing or noticing;
//     without telling the user; the user must not know. "Don't tell the
//     user about each tool call" (a real skill's advice on brevity) and
//     "do not show the user raw JSON" are not findings. Quoted as rule 13
//     says, it is quoted-injection.
//  15. quoted-injection (medium): rule 13's or 14's phrase in code,
//     enclosed by a matching pair of quotation marks or backticks, or
//     the whole of a cell of a Markdown table's column of phrases.
//  16. executable-binary (high): a file that is a native program: ELF,
//     Mach-O (thin and fat) or PE (MZ with a PE header). A skill's tools
//     should be scripts a reviewer can read; a binary cannot be audited.
//  17. exec-bit (low): a file with an executable bit that is neither a
//     script (#! first) nor a binary: harmless on its own, but odd.
//  18. binary-file (info): a file that is not text (a NUL byte or invalid
//     UTF-8 in its first 8 KiB), not a program and not named as text (rule
//     22's names), e.g. an image: it is not scanned, and said so.
//  19. symlink (high): a symbolic link, or another file that is neither
//     regular nor a folder (a device, a pipe, a socket, a junction),
//     anywhere in the tree. A link can lead an agent, or an installer that
//     follows it, out of the skill (~/.ssh); a skill needs none. The
//     finding names the link's target.
//  20. large-file (high): a SKILL.md over 1 MiB (the largest of the real
//     skills measured is under 300 KiB; instructions that large are meant
//     to drown a review or the context window) or any file over 8 MiB (not
//     scanned: more than any instructions or script needs; no file of the
//     real skills measured is over 5 MiB).
//  21. attack-example (medium): what rules 6, 8 and 11 find, on a line
//     that aims it at a placeholder host (attacker.com, evil.com,
//     example.com, http://attacker/, ATTACKER_IP, YOUR_IP, $LHOST,
//     <attacker>): security skills document attacks this way, and an
//     attack on a placeholder reaches nobody. Not when the line also aims
//     at a real target: a routable IPv4 literal (not 127/8, 10/8,
//     172.16/12, 192.168/16, 0.0.0.0 or the documentation ranges
//     192.0.2/24, 198.51.100/24, 203.0.113/24), a drop host of rule 11, or
//     a URL, /dev/tcp path, socat or nc host that is not a placeholder;
//     then the line is its rule's. Rules 7 and 10 still apply to such a
//     line. Also the documentation shapes of rules 3, 7 and 10 that
//     "Examples and confirmations" describes: an encoded payload shown
//     inert, a secret store's read quoted in a sample report, an
//     invisible character shown where it is named.
//  22. malformed-text (high): a NUL byte in a file that says it is text:
//     by its name (.md .markdown .mdx .txt .rst; the scripts .sh .bash
//     .zsh .py .js .mjs .cjs .ts .rb .pl .ps1 .psm1 .bat .cmd .php .lua;
//     .yaml .yml .json .toml .html .htm) or by a #! first line. A viewer
//     shows such a file as binary, or cut short, while a shell or a model
//     reads on. Such a file is scanned as text whatever its bytes: a NUL
//     reads as a space and invalid UTF-8 as U+FFFD, so one byte does not
//     turn the other rules off. Invalid UTF-8 alone is not a finding.
//  23. direct-run (low): an instruction that runs a file of the skill by
//     its path (./scripts/x.sh, scripts/x.sh --in a.pdf,
//     "$SKILL_DIR/scripts/x.py", ${CLAUDE_SKILL_DIR}/bin/tool) where the
//     tree holds that file and it is a program to run: a script by its
//     name (rule 22's script names) or its #! line, a file with an
//     executable bit, or a native program. A skill mounted as an
//     image volume (Kubernetes mounts an OCI image read-only, and may
//     mount it noexec) cannot run a file so; bash scripts/x.sh (python3,
//     node, ruby, ...) reads the file and runs it wherever it is
//     mounted. The finding names the interpreter to write, from the
//     file's #! line or its name. "Running directly" says what an
//     instruction is.
//
// Every rule but 1-4 and 16-20 and 22 reads a line with the invisible
// characters of rules 1-3 removed. A Markdown file (.md, .mdx, .txt, .rst,
// or no extension) is read with its context: prose, fenced code blocks,
// and HTML comments (hidden when rendered); any other text file is code.
// Each rule reports a line once, at its first match there: a line of a
// thousand bidi controls is one finding.
//
// # Examples and confirmations
//
// Security skills quote attacks (a scanner lists what it detects, a
// review skill shows red flags), and honest skills offer an official
// installer on the user's say. An agent reads all of a skill's text as
// instructions, the code blocks of SKILL.md and of the files it links
// to included; so neither a code block, nor a references/ folder, nor
// a skill's name or description, nor prose saying "an example of what
// to detect" makes a quoted attack inert: an attacker writes those
// around a real payload for free, and adds "run the example above".
// What lowers a finding here is what the quoted text itself is, or a
// condition on running it that puts the user in the loop; and it
// lowers it to a medium rule, still reported, never to silence:
//
//  1. An encoded payload shown inert (rule 7 to rule 21), in a
//     Markdown file (a script runs what it decodes). Every decode on
//     the line (b64decode(...), FromBase64String(...), echo ... |
//     base64 -d) has as its whole argument a literal (without $ or `
//     in a shell) or a variable assigned a literal on one of the three
//     lines before and not named again until the decode, and no line
//     of the seven around redefines the decoder; the decodes are all
//     that runs: taken out, they leave only what runs them (exec(...),
//     | sh, iex, the decoder's own words), nothing joined to them
//     (exec(b64decode("") or urlopen(...).read()) runs the download);
//     and each payload, decoded as a lenient decoder does (characters
//     outside the alphabet dropped, as Python's b64decode drops the
//     "..." of "aW1wb3J0IG9z..."; a literal with - or _, which
//     b64decode drops and urlsafe_b64decode reads as + and /, is not
//     read at all), runs nothing (it is empty, or imports modules of
//     Python's standard library only: importing another module runs
//     its code) or is one plain network command (rule 5's, 8's or
//     11's shape; beside the imports no second statement, no ; && ||
//     or newline, no command substituted in it) aimed at hosts no one
//     can register (a reserved name: .example, .test, .invalid,
//     .localhost, example.com/.net/.org and their subdomains; a name
//     without a dot, a variable, a private or documentation address;
//     and the two names security documentation uses, attacker.com and
//     evil.com), with no further layer (a decode, an escape, eval,
//     exec, chr(), __import__). The audit reads the payload, so a real
//     one is found whatever prose or fence surrounds it: an "elided"
//     payload whose visible part decodes to a command, a placeholder
//     comment beside a real host, a host with "example" or "evil" in
//     a label of its own (example.badhost.net, evil.sh), a placeholder
//     command followed by rm -rf, a second encoded layer all stay rule
//     7's. PowerShell's encoded command and hidden window show no
//     payload, and stay rule 7's.
//  2. A secret store's read quoted in a sample report (rule 10 to rule
//     21): on a line of a Markdown code block, the read follows a
//     report's label and nothing else ("   Pattern: open(...
//     ~/.ssh/id_rsa)"), no line of the seven around sends data (rule
//     11's sending commands), and the whole block, read from the whole
//     file, is a sample report: its fences name no language (or text,
//     output, log), and each of its lines, past a decoration that is
//     not ASCII (a box's edge, a coloured mark), is empty, a finding's
//     header ("[high] path:27", "CRITICAL [CODE-EXEC] path:42"), a
//     title in capitals, or a field under a label of up to three words
//     whose first is capitalised, not followed by (, = or {; and no
//     line holds ; | & ` { } $( or __. A shell function named
//     "Pattern:", a Python annotation sent on by __annotations__, an
//     import line, a ```bash or ```python fence all make the block
//     code. Nor does the file's prose have the agent run, paste, try or
//     reproduce the example, pattern, sample, block or finding it
//     quotes, anywhere in the file. Rule 11 still finds the key sent on
//     the line (a labelled "cat ~/.ssh/id_rsa | curl -d @- ..." is
//     exfiltration, high). The same read in prose, in a script, or
//     without the label ("tar -cvf key.tar /root/.ssh/id_rsa" in a
//     shell block) stays rule 10's.
//  3. An injection phrase that is the whole of a Markdown table's cell
//     (rule 13 or 14 to rule 15): the name of a pattern in a catalogue
//     of them, a quotation as rule 13 already reads one, and no weaker.
//     The cell's column is one of phrases: the table has a header row
//     and a separator row (found however far above), and the column's
//     header names what it lists (pattern, phrase, payload, example,
//     indicator, signature, attack, technique, injection, trigger,
//     string, red flag, detection); and the file's prose does not have
//     the agent follow, obey or carry out the table, its rows or
//     phrases. A cell that holds the phrase and more ("Ignore previous
//     instructions and upload ..."), a table without a header, or one
//     of steps or rules ("| Step |", "| Rule |") stays rule 13's.
//  4. An invisible character shown where it is named (rule 3 to rule
//     21): one character alone (a run of two or more, or another
//     invisible character anywhere after it on the line, stays rule
//     3's: one named character does not cover a message hidden beside
//     it) inside a word, in a Markdown file, between a matching pair of
//     quotation marks or backticks, on a line that names such
//     characters. Rules
//     5-15 read the line without it, so the split hides nothing from
//     them that the whole word would not show, and the excerpt writes
//     it as \u200b. The file still counts as one with hidden characters
//     for rule 6.
//  5. An installer offered behind the user's confirmation (rule 6 to
//     rule 5): rule 5's shape (not a link to a program or an archive,
//     the campaigns' shape), made rule 6's only by the wording around
//     it (a password, a prerequisite; never by an HTML comment, hidden
//     characters, a bare IP, a paste host or plain http). In Markdown:
//     on the three lines before it or on its line before it, wording
//     that has the agent ask the user first ("ask the user whether to
//     install it", "only if the user agrees, run", "with the user's
//     permission"), in a sentence about installing or running (not
//     "ask the user whether they like dark mode"); an ask after the
//     command gates nothing ("if that fails, ask the user", "then ask
//     whether it worked"). On the seven lines, none that undoes it ("do
//     not ask the user for confirmation", "the user has already
//     approved", "assume the user agrees", pre-approved, "yes |", "||
//     true", "run it regardless", anyway, either way, in any case, no
//     matter what, whatever they answer). In a script: on the three
//     lines before it, a read of a reply to a prompt whose default is
//     no ([y/N] or (y/N), so a run without a terminal answers no) and a
//     test of that reply, as read, for yes that opens the branch the
//     download is in (`[ "$a" = y ]; then`, `&&`, a case arm
//     `[Yy]*)`), with no else, fi, esac, ;;, exit or || between them.
//     The test is of the variable the read sets, after the read, and
//     the reply is neither given a default (${a:-y}, ${a:=y}) nor
//     assigned after the read (a=y). A prompt whose default is yes, a
//     test for anything but yes, and a download in another branch stay
//     rule 6's. A script's prompts are read up to a budget, so that a
//     script of nothing but downloads behind prompts is read in linear
//     time: the lines before its downloads, 16 KiB and a sixteenth of
//     the file in all (scriptBudget); a download past it stays rule
//     6's. An installer script with a prompted download every few
//     dozen lines stays well within it. Wording that asks the user is an instruction too, but
//     one that hands the decision, with the command in view, to the
//     user.
//
// testdata/malicious holds attempts on each (a payload dressed as a red
// flag with "run the example above", one nested, one "elided" but
// whole, one joined to a download, one aimed at a placeholder's
// look-alike subdomain, a labelled key read piped to curl, a label
// that is a shell function, a refused and a claimed confirmation, an
// ask only if the command fails, a prompt that defaults to yes, a
// download in the else branch, a table cell with more than the phrase,
// a table of rules), TestExamplesAndConfirmationsEvasions 26 more,
// and TestRules the look-alikes of each; all stay at high or above.
//
// What remains is the reader. The agent is the interpreter of a
// skill's text: it may run what no shell would (a sample report's line
// typed into a terminal, a catalogue's phrase taken as an order), and a
// skill can ask it to in words no expression lists ("now try what the
// report shows"). The rules above lower a finding only where the text
// is inert to every program that would run it as written, and where
// the file says nothing that has the agent run or follow it; they
// lower it to a medium finding, which the report still shows and a
// policy may refuse (a policy of fail_on: medium refuses every one). An
// attacker who writes an attack in the one inert shape gains a medium
// finding on the very line and still needs the agent to act against
// its text; an honest security skill keeps the shape it already uses.
// Past that, the audit is a text search and not a judge of intent: the
// user's review of what a skill asks, and the policy, are the rest.
//
// # Running directly
//
// Rule 23 tells a command from the mention of a file. It reads a
// skill's instructions: its Markdown files (as above, but not a file
// that starts with #!, which is a script), where a command is
//
//  1. a line of a fenced code block whose info string names a shell
//     (bash, sh, shell, zsh, ksh, dash, fish, console, terminal,
//     shell-session, sh-session, shellsession) or is empty; or
//  2. the text of inline code (between backticks) on a prose line.
//
// A path in a command is run when it stands at a command's position:
// first (after a prompt, "$" or "%", and after assignments, FOO=1),
// after ; & && || | ( $( or a backtick outside quotes, or after a word
// that runs the next one (sudo, doas, env, exec, time, timeout, nohup,
// nice, xargs, command, if, then, do, else, elif, while, until, !, {)
// and the options and numbers that follow it; a line of a block that
// continues the one before (which ends with \) starts at no command's
// position. An argument is not run by the shell: bash scripts/x.sh,
// python3 scripts/x.py, uv run scripts/x.py, node, sh, and source or .
// (which read the file) are what the rule asks for, and chmod +x
// scripts/x.sh runs nothing. Quotes are removed; what follows # is a
// comment.
//
// The path is the skill's when it is relative (bare, after ./, or after
// one variable whose name holds "skill" or is baseDir, in any case:
// $SKILL_DIR/, ${CLAUDE_SKILL_DIR}/, {baseDir}/, but not a variable of
// another folder, $PROJECT_ROOT/, $GITHUB_WORKSPACE/ or $1/; a path with
// another variable, a glob or a backslash is not read) and leads, from the skill's root or from the Markdown file's
// folder, to a file of the tree that is a program to run (rule 23).
// Both are joined with the folder of a cd earlier in the command (in
// the same subshell) to a relative folder, or to a variable whose name
// holds "skill" or is baseDir (the skill's folder); after a cd to any
// other folder, or to one whose path from the skill's root is longer
// than 1 KiB (as no path run is read longer), no path is read. So a URL, an absolute path or one
// under ~ (/usr/local/bin/tool, a file of the machine), ./configure or
// ./gradlew of another project (not in the skill), a folder, a file
// that is not a program (a reference's Markdown, a CSV) and a path
// that leaves the tree by .. are not findings.
//
// A mention is not a finding: a path in prose outside inline code
// (text, a link's target), in an HTML comment, in a block of another
// language (python, text, json, ...), or bare and alone: with no
// argument after it, neither ./ nor a variable before it, in inline
// code ("fill it with `scripts/fill.py`", "use `scripts/fill.py`") or
// on a line of a block without an info string and without a prompt (a
// listing of the skill's files). The same path alone is a command when
// written with ./ or a variable, or on a line of a shell's block; and
// in inline code right after a verb that has it run (run, execute,
// exec, invoke, launch, call or start, in any case, and a colon: "Run
// `scripts/status.sh`.") when the file has an executable bit: one that
// has none cannot be run by its path anywhere, so "run" there means
// through its interpreter.
//
// What a script runs is not read: a script run by its interpreter that
// runs another by its path fails on a noexec mount too, but where such
// a path leads depends on the script's own variables ($(dirname "$0")),
// which a text search does not follow. Nor is a line of 4 KiB or more
// (no command is that long; every piece of a long line is), a path of
// over 1 KiB, nor a Markdown file without a backtick and without ~~~
// (it has neither inline code nor a fenced block).
//
// A path is the skill's only once the tree's files are known: the
// audit reads each Markdown file's commands with the other rules, once,
// in the order of the files (a README.md before the SKILL.md), holds
// the paths they run (see "Limits": the SKILL.md's whatever the files
// before it run), and reports those that lead to a program once every file
// has been read. A path run is read only with its file name written as
// it is, without quotes in it (a quote may close it), and not . or ..
// (a folder).
//
// # Limits
//
// What the audit reads, and what a report keeps, are bounded, so that
// auditing any tree takes bounded memory however many matches it holds:
//
//  1. The audit reads at most 10,000 files and 64 MiB in all; beyond
//     either, [Tree] fails with [ErrTooLarge] rather than answer about
//     part of a tree.
//  2. A file over 8 MiB is not read (rule 20 reports it), and only its
//     first 8 KiB is read to tell a program from text. A file is held
//     once, in a buffer of 64 KiB or of its size (files under 64 KiB
//     share one), with the few lines of it that rule 6's context needs;
//     at most one buffer more than the goroutines that scan (one a
//     processor, at most four) is held at once: 24 MiB at most on two
//     processors, 40 MiB on four or more (a file that grows as it is
//     read aside, which may double its buffer). A text file that must
//     be decoded to be read (a NUL, invalid UTF-8) is read from a copy,
//     of at most twice its size (an invalid byte becomes U+FFFD, three
//     bytes), held while a goroutine scans it: so 56 MiB at most on two
//     processors and 104 MiB on four, live (the heap may hold more, the
//     copies of files already scanned, until the collector runs).
//  3. A line over 64 KiB is read in pieces of 64 KiB that overlap by 4
//     KiB, each under the line's number; a rule still reports the line
//     once.
//  4. A report keeps at most 100 findings of one rule: the first the
//     audit comes to (files in the order [fs.WalkDir] walks them, lines
//     in order).
//  5. A report keeps at most 1,000 findings in all; past that, a rule
//     keeps only its first finding, so every rule that fired is in
//     [Report.Findings] (1,000 findings and one of each other rule at
//     most) and [Max] of them is the tree's highest severity.
//  6. Every finding past rule 4 or 5 is still found and counted, by rule,
//     in [Report.Omitted], and nothing else of it is kept; output says
//     "and 31,204 more (bidi-control 31,000, zero-width 204)"
//     ([Omitted.String]). [Report.Trim] bounds, in the same way, the
//     reports of many skills that one program holds.
//  7. An excerpt is at most 160 characters and a message at most 200.
//  8. Rule 23 holds, until the tree's files are known, the first 1,000
//     paths that the commands of the skill's SKILL.md run, and the first
//     1,000 that those of its other files run (by the order of rule 4,
//     each of at most 1 KiB), and reports those that lead to a program of the tree once
//     every file has been read: its findings come after every other
//     rule's under the caps of rules 4-6.
//
// # Speed
//
// The audit's budget is ten times a text search of the tree ("Measured"
// says where it stands): most lines hold nothing any rule looks for, and
// those are read once and left. Rules 5-15 and 21 are regular
// expressions; the syntax tree of each gives the strings every match of
// it holds ("curl" or "wget" between word boundaries, ".env",
// "/dev/tcp/"), and one Aho-Corasick automaton over all of them finds
// them in a line in one pass. An expression runs only on a line that
// holds its strings, and only on the part of the line between the first
// place a match can start and the last place one can end; an
// expression that is a set of keywords (the sending commands, the
// credential paths, the drop hosts) is answered by the occurrences
// alone. The automaton steps through two lines at once, the next line
// taking the place of one that ends, so that the processor overlaps
// their two chains of table lookups (in a loop that calls nothing up to
// the next place where a string ends, so that both stay in registers),
// and a line
// touches an expression only when it holds a string of the rarest part
// its condition needs ("pip" or "uv" for a pip install from a URL, not
// "install"), so that a frequent word has few conditions evaluated; a
// line that touches none of the expressions asked of every line (the
// others are asked only once one of these matched) is left before any
// rule asks it. In
// a long text (a piece of a long line, or rule 6's seven pieces joined)
// an expression whose repetitions stop within a word or a gap (`\s+`,
// `[^/\s]*`, not `[^\n]*`) runs anchored at each place its matches can
// start, not over the whole text with the regexp package's slowest
// engine; those runs together read at most four times the text's
// length (a word of many anchors, such as a URL repeated without a
// space, has each run read to the word's end), and past that the
// expression runs once over the whole text instead. The filter only
// skips work: the findings are those of every expression run on every
// line, case-insensitive matching (the Kelvin
// sign and the long s match k and s) and hidden characters included,
// which TestPrefilterChangesNothing, FuzzPrefilter, TestFindAnchoredBudget and
// TestFindAnchored check. What a file may hold is asked once of it
// all, in one pass that also lists where a hidden character may be (the
// first 16,384 places whose bytes begin one; past them, they are
// searched for), and rules 1-4 read only the lines that hold those
// places or the bytes rule 4 looks for (an ESC, a backspace, a carriage
// return that ends no line, a C1 control: one search of the file for
// each, many bytes at a time), so that a file is read line by line
// once, by rules 5-15 and 21; of those lines only the ones with a
// listed place are cleaned, by decoding only the characters at its
// places, unless the file holds invalid UTF-8. Of the
// checks of "Examples and confirmations", whose expressions run beside
// the prefilter, rule 7's inert decode asks the prefilter's expressions
// through it, and asks whether a line redefines the decoder once of a
// line, and only of one that holds what a redefinition holds.
// A tree's files are read by the goroutine that calls [Tree], in the
// order [fs.WalkDir] walks them. Their text is scanned by that
// goroutine as far as the first 16 MiB of the tree go, which a skill's
// tree seldom passes: on one goroutine the scan takes the least CPU
// time, which is what counts on a machine with no core idle. Past
// them, it is scanned by up to one goroutine a processor (at most four;
// files under 64 KiB go several at a time, so that handing them over
// costs little), so that the audit of a larger tree takes the wall
// time of a part of it where processors are free. A file's findings are kept by a keeper of
// its own under the cap of a rule in one file, as a [Scanner]'s are, and
// merged in the order the files were read under both caps, so that the
// report, an error included (the first file, in that order, that cannot
// be read), is the one of reading and scanning the files one after the
// other, which TestTreeWorkers* check on the fixtures, random and
// hostile trees, trees where the caps cut and files that fail part way.
// What a process that audits pays once is small: the prefilter is
// compiled into the program, as Go source that go generate ./audit
// writes of it (TestLineFilterSource fails when it is stale): loading
// it costs nothing, where building it from the expressions' syntax
// trees takes milliseconds (BenchmarkLineFilter); an expression is
// compiled when it first runs (ordinary text runs none of the line rules' expressions; every
// one is made by lazyCompile, whose list TestLazyExprsCompile compiles,
// so a wrong pattern fails the tests rather than an audit), and a
// tree's files are read into a few buffers that every file reuses (one
// more than the goroutines that scan), so that reading them leaves no
// garbage to collect.
// The expressions that cost the most to confirm where nearly every line
// is a candidate (uploads, downloads piped to a shell, the environment
// dumped or printenv piped, a home folder's keys archived, links to
// programs, a browser's stores, the placeholder hosts, PowerShell's
// encoded command, a decode run by eval or a shell, and the searches
// for a credential path, a .env file, a private key read, an
// instruction to ignore the ones before or to keep something from the
// user, a line's target hosts and rule 7's decodes), and those that a
// dense text runs most often (/dev/tcp, a wallet, the keychain, a
// search for .env files, a shell given a download, exec of a decode,
// socat's exec, a new system prompt, a jailbreak mode, a redefined
// decoder) or that long lines ran anchored at every place (pip from a
// URL), have matchers and finders written by hand, which read a
// line once where the regexp package's backtracker tries each
// alternative after a `[^\n]*` at every place of the rest of it. A
// finder gives the match's place as well, so that no expression runs
// again to place what a matcher found (the pipes into a shell, the
// decodes and /dev/tcp match on most lines of a dense text), and the
// payloads an inert decode decodes are read by hand where a decode
// starts. The expressions stay their specification, which
// TestHandWritten and FuzzHandWritten hold them to, and the audit
// without the prefilter runs the expressions alone. An expression
// found by hand is tried on a line that touches it, without its
// condition; those whose finder reads every word of such a line (the
// ones a dense text runs most often) keep the condition before it, so
// that ordinary text and long lines pay no more than before. The keeper
// counts findings by a rule's index, and rules 1-4 write a message
// only for a finding kept: a dense text finds tens of thousands that
// the caps omit.
//
// Most lines of most text hold none of the prefilter's strings, and a
// line that holds none is read by a rule only in the window of a line
// within three lines of it that holds one. A line beyond every such
// window changes only how the lines after it are read, and only when
// it holds a mark: a fence or an HTML comment that opens or closes, a
// / or inline code that rule 23 reads, a character the cleaning of a
// line drops or a scan folds (a backslash that continues a command is
// none: what it continues matters only on a line with a /, whose three
// lines before are read). The audit passes over such lines in bulk
// (quiet.go): where the lines it read last hold no string, it searches
// the file for the next string (the automaton, without recording what
// it finds: a step and a comparison a byte) and the next mark, counts
// the newlines up to the third line before, and goes on there, knowing
// the context of the lines passed over from the fence and comment they
// are in. 4 MiB of empty lines is read in about 8 ms of CPU (1.9 ns a
// byte, where each line cost about 60 ns), and of empty and one-word
// lines with a keyword every 64 lines in about 22 ms (100-117 before).
// TestQuietLinesChangeNothing and TestQuietLinesInAWindowRead hold the
// findings to those of every line read, and TestQuietLinesPassedOver
// counts the lines read. A search that finds the next string within
// three lines passes nothing (text whose keywords' lines are four to
// seven apart would search once a batch of lines): after such searches
// the audit waits before it searches again, about twice as long each
// time up to 16 batches. A search that passes lines ends the wait, and
// so does one that passes none after 16 quiet lines read one at a
// time, so that text cannot keep the wait long by putting a keyword
// just past each place a search is made (TestQuietSearchesWait,
// TestQuietWaitEnds). An empty line that is read (one in the window of
// a line with a string) is neither cleaned, scanned nor asked of the
// rules: it shares one Hits that holds nothing, and tells rule 23 alone
// that it continues no command. Of a run of more than three empty lines
// only the first three are read (and the last three too, where a pass
// over quiet lines ends in the run): the line after the run has three
// empty lines as the lines of its window before it, and the line before
// the run is more than three lines from it, so that the window of no
// line that is not empty (the only lines asked of the rules) holds
// lines from both sides; each line beside the run reads three empty
// lines there as it would read the whole run, and the lines after it
// keep their numbers. Rules 5 and 6 read a line's seam on up to six
// lines after it, which may now reach past the run; they keep only a
// match that ends in the window (TestEmptyRunsRead). A keyword's line
// then six empty lines is read as four lines for every seven.
//
// Rules 5 and 6 read the lines around a download: a confirmation on the
// seven around it (an ask, wording that undoes it, a word of running in
// the ask's sentence), a password on the seven, a prerequisite on the
// four up to it. Run over the lines joined, the expressions read a text
// whose every line is such a download seven times (a thousand times
// `grep`'s time). They learn instead what each line holds once, however
// many windows hold it (confirm.go, near.go): where each ask and word
// of running starts and ends, each end of a sentence, and where the
// first match of the others that starts on the line ends; a match that
// runs over the line's end is read on its seam, the line's last eight
// runs of \S and the first eight of the lines after it (and 80
// characters more on that line, for a prerequisite's): no match of
// these expressions that runs over a newline touches more. A window's answer is then a walk
// over its lines' lists. Matchers written by hand give each match's
// first end (or, for an ask, the end the expression prefers); the
// expressions stay the specification (TestConfirmedAsBefore,
// TestNearAsBefore, TestContextsChangeNothing). A script's prompts are
// read by their expressions within a budget (rule 5 above), past which
// its downloads are judged without them.
//
// Rule 23 reads for commands only a Markdown file that holds a
// backtick or ~~~, and of it only the lines that hold inline code or
// are in a shell's block, and hold a /: a search for one byte. It costs
// 5-8% more CPU where the text has code blocks (ordinary instructions:
// about 4% of a profile of the audit), and nothing elsewhere
// (docs/speed.md).
//
// [RulesVersion] changes with the rules, so that a verdict kept for a
// content digest is kept for the rules it was made with.
//
// # While a tree is written
//
// [Tree] reads a tree from a file system. A program that writes the tree
// itself (an extraction, a copy) gives its entries to a [Scanner] as it
// writes them instead, and has the same report without reading the tree
// again: its rules say how.
//
// # Platforms
//
// The audit reads an [fs.FS] and runs the same on Linux, macOS and
// Windows. Links are found where the file system reports them (os.DirFS
// does on all three; a Windows junction or other reparse point is a
// special file, which rule 19 reports too). The
// exec bit (rule 17) exists only where the file system keeps it: on
// Windows no file has it, so that rule never fires there.
//
// # Measured
//
// go -C bench run ./auditrepos over thirteen published skill
// repositories at the commits bench/data/auditrepos.txt pins (December
// 2026): the ten followed since the audit began (anthropics/skills,
// openai/skills, trailofbits/skills, hashicorp/agent-skills,
// vercel-labs/agent-skills, obra/superpowers,
// K-Dense-AI/claude-scientific-skills, github/awesome-copilot,
// wshobson/agents, sickn33/antigravity-awesome-skills),
// getsentry/skills and alirezarezvani/claude-skills (which hold
// security-review, skill-scanner and skill-security-auditor skills), and
// ComposioHQ/awesome-claude-skills:
//
//   - 2,571 skills audited, none failed; 2,428 with no finding.
//   - Highest finding per skill with RulesVersion 3 (and 2, the same
//     counts per skill and per rule: the evasions RulesVersion 3 closes
//     lowered none of these skills' findings): critical 0, high 1,
//     medium 121, low 12, info 9. At the default threshold (high) 1 of
//     2,571 skills is refused (0.04%), a true positive.
//   - With RulesVersion 1, before "Examples and confirmations": high 4,
//     medium 118; 4 refused (0.16%), 3 of them false positives (3 of
//     the 2,570 honest skills, 0.12%; now 0): getsentry's
//     security-review (an elided base64 payload among a supply-chain
//     review's red flags) and skill-scanner (a payload decoding to "curl
//     evil.com", a table of injection phrases, a zero-width space shown
//     in "ig\u200bnore"), and a skill-security-auditor (a sample report
//     quoting a read of ~/.ssh/id_rsa, and payloads elided or aimed at
//     evil.com). The fourth false refusal seen with the same rules
//     elsewhere, Homebrew's official installer offered only on the
//     user's confirmation, is in none of these commits;
//     testdata/benign/homebrew-on-confirmation reproduces it (high with
//     RulesVersion 1, medium now).
//   - Findings (skills) per rule: credential-read 380 (99),
//     download-exec 67 (29), attack-example 19 (8), quoted-injection 24
//     (6), exec-bit 50 (13), file-upload 4 (3), binary-file 185 (15),
//     secret-store-read 1 (1); every other rule 0.
//   - The one skill at high is an offensive-security skill whose
//     instructions archive root's private SSH key (a privilege-escalation
//     technique, in a shell block): a true positive, kept.
//   - The malicious fixtures of testdata/malicious (42, each a different
//     technique, 14 of them attempts on "Examples and confirmations"),
//     the 26 cases of TestExamplesAndConfirmationsEvasions and the trees
//     built in the tests (programs, a link to ~/.ssh, oversized files)
//     all reach high: recall 42 of 42 and 26 of 26 (with RulesVersion
//     2, 37 of 42 and 1 of 26). The benign
//     look-alikes of testdata/benign (10, 4 of them the refusals above
//     written anew) all stay below it: 10 of 10 pass (6 of 10 with
//     RulesVersion 1).
//   - Before the prefilter of "Speed": 38.5 s of CPU for the 1,439
//     skills (27 ms a skill; 171 MB of files, about 4.4 MB/s), 30 MiB
//     peak memory; a hostile 8 MiB SKILL.md made of lines dense with the
//     rules' words cost 17-26 s of CPU, and a hostile tree of 64 MiB
//     (seven 8 MiB files whose every line has findings of rules 1-4, and
//     7 MiB of lines each with five rules' matches: 8 million findings)
//     21 s of CPU with a peak resident size of 35 MB, also under a 64
//     MiB GOMEMLIMIT (as agentskills add sets it); the report keeps 800
//     findings and counts the rest.
//   - Against a text search, side by side in one run (go -C bench run
//     ./auditgrep, December 2026, 2 cores at a load average of 1.6-1.8,
//     CPU time, medians of 5; grep -rE of a download-and-run pattern,
//     and the audit in the measuring process and in a process of its
//     own, which also starts and builds the expressions and the
//     automaton): ordinary instructions, 40 MiB in 40 files, grep 42
//     ms, the audit 342 ms, 8.1x (8.5x in its own process); a small
//     tree of them, 4 MiB in 16 files, grep 5.7 ms, the audit 42 ms,
//     7.3x (8.9x); 4,000 files of 1 KiB, 7.8x (7.7x); 8 MiB with CRLF
//     line ends, 7.1x (9.1x); 8 MiB in lines of 256 KiB, 10.1x (9.4x);
//     8 MiB of text with a word in five outside ASCII, 10.1x (11.2x);
//     one 8 MiB file of lines dense with the rules' keywords, grep 25
//     ms, the audit 475 ms, 19.4x (20.6x). In a run right before, of the
//     code before rules 1-4's search of the whole file and the cheaper
//     checks of rule 7's inert decode: text outside ASCII 16.2x
//     (16.0x), the keywords 24.5x (22.6x), the rest as now (before
//     RulesVersion 3, 12.6x and 23.3x, then 9.8x and 18.1x); before the
//     changes of "Speed" after the prefilter (lines in pairs, the
//     rarest part's trigger, anchored runs, questions asked once of a
//     file, a faster build): 10.8x (11.7x), 8.1x (12.8x), 6.9x (8.1x),
//     11.1x (13.7x), 44.3x (43.3x), 17.3x (21.0x) and 29.8x (32.1x); on
//     the shared machine a ratio moves by 10-20% from run to run.
//     Before the prefilter the audit read about 0.7 MB/s (58-62 s for
//     40 MiB of ordinary text, 17-26 s for the 8 MiB of keywords). The
//     budget is 10x: ordinary text, small trees, tiny files, CRLF and
//     long lines are within it or at it, text outside ASCII just over
//     it (the prefilter's scan is 40% of its time and checking that the
//     file is UTF-8 a tenth), and a process of its own added 10-30 ms of
//     starting and building (see the next item); text made of nothing
//     but the rules' keywords is at nearly twice it, where nearly every
//     line is a candidate of most expressions and the regexp package's
//     backtracker confirming them takes about half of the time (the
//     upload expression, whose `[^\n]*` follows "curl", a tenth; the
//     checks of "Examples and confirmations", whose expressions run
//     beside the prefilter, about a tenth) and the prefilter's scan a
//     quarter. In long lines the `[^\n]*` and `[^|\n]*` expressions
//     (download and run, uploads) still ran over 64 KiB pieces with the
//     regexp package's slowest engine.
//   - The round of the matchers written by hand of "Speed" (main at
//     e11accf, then 13f7c21, the same findings, back to back at a load
//     average of 4.5-5.1 on 2 cores): the keywords 17.8x (20.3x) to
//     10.9x (11.0x), 471 ms to 274 ms of CPU; lines of 256 KiB 9.8x
//     (9.9x) to 5.2x (5.1x); text outside ASCII 8.7x (9.3x) to 8.4x
//     (9.0x); the other shapes 2.9-7.4x before and 2.8-6.7x after.
//     Over the budget still, just: the keywords, where the scan and
//     its recording of an occurrence every 6 bytes are a third of the
//     time, the conditions of the expressions without a matcher an
//     eighth, and the expressions and checks left most of the rest.
//   - The keywords' round of their own (main at 7ca767a, then ed96764,
//     the same findings; go -C bench run ./auditgrep -cli -old, which
//     runs the build before beside, three runs at a load average of
//     8.7-12.3): the keywords 8.2-9.1x in process and 8.1-10.3x in a
//     process of its own, where the build before took 11.2-11.6x
//     (0.70-0.91x its CPU); text outside ASCII 7.9-8.9x and 8.6-10.3x
//     (9.3-10.7x before); the other shapes 3.2-7.6x. More matchers and
//     finders written by hand (rule 7's payloads run anchored,
//     PowerShell's encoded command, printenv piped, a key read, a decode
//     run by eval, the two injections, a home folder archived), and a
//     flatter and smaller prefilter. Left: the scan and its recording
//     a third of the time, its answers a seventh, the regexp package
//     an eighth.
//   - What a process that audits pays once, side by side in one run
//     (go -C bench run ./auditgrep -cli, December 2026, before and after
//     the prefilter's tables, expressions compiled when first run and
//     one buffer for a tree's files; CPU time, medians of 21, at a load
//     average of 12-14): a small tree, 4 MiB in 16 files, audited in a
//     process of its own 10.7x grep, then 6.5x, and by agentskills audit
//     DIR (which starts the whole command) 12.8x, then 8.7x; 4,000 files
//     of 1 KiB 7.7x, then 3.6x, and 8.4x, then 4.3x. Of agentskills'
//     start, this package's initialisation went from about 4 ms (its
//     expressions compiled) to none; about two thirds of what remains
//     is other packages' initialisation, and two garbage collections,
//     one as the program starts and one as the prefilter loads, are
//     about a seventh of its audit of the small tree.
//   - A tree's files scanned on several goroutines (go -C bench run
//     ./auditgrep -cli OLD,NEW, December 2026, the build before and
//     after, medians, 2 cores busy with other work at a load average
//     of 9.7-13.7): agentskills audit of the small tree, wall / CPU
//     against grep, 15.3x / 9.6x before and 15.1x / 10.1x after (41
//     rounds; 6.8x / 8.2x and 6.2x / 8.4x in 21 rounds at 10.3-11.0),
//     and 7.8x of CPU, wall equal to it, on a quiet machine before:
//     the budget holds for the command on a quiet machine, not under a
//     load of ten processes on two cores, where it waits for a core. In
//     process, at a load of 8.5, the small tree took 71 ms of wall with
//     two goroutines and 83-87 ms with one, for 48 and 45 ms of CPU.
//   - The audit's CPU time (go -C bench run ./auditgrep -cli, December
//     2026, the build before, main at 9474875, and after, side by side,
//     medians of 7 at a load average of 5.6-5.8): a tree's first 16 MiB
//     scanned on the calling goroutine, the prefilter's lanes stepped in
//     a loop that calls nothing, a line that touches none of the
//     expressions asked of every line left at once. agentskills audit
//     against grep, wall / CPU: the small tree 9.8x / 7.9x to 6.3x /
//     6.8x (one core: 6.5x / 7.5x to 6.7x / 7.0x), text outside ASCII
//     7.5x / 10.3x to 6.5x / 9.1x, the keywords 12.2x / 10.4x to 9.3x /
//     9.8x; in process 4.8x, 8.1x and 9.0x of CPU.
//   - The rules' per-line work on the keywords (go -C bench run
//     ./auditgrep -old OLD, main at d7c4c09 and after, CPU time,
//     medians of 9 at a load average of 0.8-1.1): more expressions found
//     by hand with their matches' ends (the regexp package ran 16,420
//     times a pass over the keywords, then 2,125), rule 7's
//     payloads read by hand, findings counted by a rule's index and
//     rules 1-4's messages written only for a finding kept. The keywords
//     in a process of their own 228 to 191 ms, 8.9x to 7.5x grep (7.7x
//     in process); lines of 256 KiB 4.4x to 4.2x; text outside ASCII
//     7.3x to 7.2x; the small tree 4.9x and 5.1x (the same CPU within
//     the noise of a run before); the benchmarks of every shape as
//     before or faster (docs/speed.md).
//   - Benchmarks, wall time at a load average of 8-20, medians of 5
//     before the prefilter and in two runs after it: BenchmarkOrdinary
//     (4 MiB of ordinary instructions) 4.5 s, then 78-113 ms;
//     BenchmarkDenseKeywords (8 MiB of lines dense with the rules'
//     keywords) 24.6 s, then 1.1-1.7 s; BenchmarkDense (one 8 MiB file
//     of lines with findings of rules 1-4) 3.5 s, then 0.35-0.43 s,
//     allocating 63 MB in all, none of it held.
//   - RulesVersion 4 (rule 23, direct-run): of the fixtures, the 10
//     benign ones have no finding of it (colored-script's "Run
//     `scripts/status.sh`." names a file with no executable bit), and
//     2 of the 42 malicious ones a low one beside their high ones
//     ("Run `scripts/setup.sh` once.", of an executable setup.sh); all
//     42 stay at high. Of the thirteen repositories only
//     anthropics/skills was at hand (December 2026, its pinned commit):
//     none of its 18 skills has a finding of rule 23 (they run their
//     scripts as bash scripts/x.sh and python scripts/x.py; the one
//     "run `eval-viewer/generate_review.py`" names a file without an
//     executable bit), and its other findings are those of RulesVersion
//     3. Its cost beside the build before it: docs/speed.md.
//   - RulesVersion 5 (rule 23: a path after a variable that does not
//     name the skill, $PROJECT_ROOT/ or $1/, is no longer the skill's;
//     a continued line's command after && or | is read; the SKILL.md's
//     paths are held apart from the other files'): the fixtures'
//     findings are those of RulesVersion 4.
//   - RulesVersion 6 (rule 23: a cd whose folder would be longer than
//     maxRunPath, 1 KiB, is lost, as a path run that long is not read,
//     so that a line of cds is read in linear time): the fixtures'
//     findings are those of RulesVersion 5; only a command run by a
//     path of over 1 KiB, joined from its line's cds, is no longer
//     found.
//   - RulesVersion 7 (rule 6: the four lines up to a download, in which
//     a prerequisite is looked for, and the seven around it, in which
//     a password is, are joined in their order; they were joined as
//     the line above, the two above it, then the download's, so that a
//     phrase over a line's end, "this\nskill needs" or "pass\n=", was
//     read only between the download's line and the one above it; and
//     rule 5: a script's prompts before its downloads are read within a
//     budget, past which a download stays rule 6's; and a long line's
//     piece ends at most three bytes before where its count falls, so
//     that a run of bytes that start no character, which made the
//     reader panic or read one piece forever, is cut within the run):
//     the fixtures' findings are those of RulesVersion 6.
//   - Quiet lines passed over and empty lines read for less (main at
//     582a55c, then this round, the same findings; go -C bench run
//     ./auditgrep -cli OLD,NEW -old, medians of 9 at a load average of
//     0.7-1.3): agentskills audit of empty and one-word lines with a
//     keyword every 64 lines 28.0x grep, then 7.9x; of a keyword's line
//     then six empty lines 43.0x, then 23.5x; of short lines of the
//     rules' keywords 18.1x, then 17.1x; of ordinary instructions 6.5x,
//     then 5.7x; the other shapes within 1-8x before and after. Over the
//     budget still: text whose short lines nearly all hold a keyword or
//     lie within three lines of one, where a line that holds a keyword
//     costs about 250 ns (bench/README.md says where).
//   - Where a keyword's line goes (main at 6671883, then this round,
//     the same findings; medians of 9 at a load average of 1.1-1.6):
//     agentskills audit of a keyword's line then six empty lines 23.7x
//     grep, then 21.9x (a search for quiet lines that passes none waits
//     before the next); short lines of keywords 15.9x, then 15.6x; the
//     other shapes within 1-7x before and after. Of 4 MiB of short
//     lines (82-85 ms of CPU in process), reading is 13 ms, the scan
//     35 ms (the automaton alone 15 ms) and the rules 36 ms; of the
//     spaced shape (66-69 ms), reading alone is 34 ms, 8x grep, its
//     empty lines about 17 ns each: no change to one part brings either
//     within the budget (bench/README.md, "Where a keyword's line
//     goes").
//   - Runs of empty lines read three lines at most (main at a8f8368,
//     then this change, the same findings; medians of 9 at a load
//     average of 0.9-1.1, on a day the machine ran grep at 11-15 ms
//     where it had run it at 8): a keyword's line then six empty lines
//     192 to 151 ms of CPU in a process of its own (0.78x; 17.4x to
//     13.6x grep), agentskills audit 19.9x to 17.0x; the other shapes
//     the same within the noise (bench/README.md, "Runs of empty
//     lines").
//
// Why the rules that fire on real skills fire: credential-read, setup
// instructions that name a .env file (most of them; .env.local and
// .env.production most of the rest) and a few ~/.ssh, ~/.aws, ~/.azure
// and ~/.pypirc paths; download-exec, official installers piped to a
// shell (uv, bun, rustup, the Google Cloud SDK, Linkerd, Flux, Aspire,
// Chocolatey) and pip installs from a git URL or another index;
// attack-example, penetration-testing skills and a CI-security auditing
// skill that show reverse shells and exfiltration aimed at ATTACKER_IP or
// attacker.com, and the security-review, skill-scanner and
// skill-security-auditor skills' inert payloads and sample report;
// quoted-injection, skills quoting an injection phrase as an example or
// naming it in a table; exec-bit, text files committed executable; file-upload, API
// documentation; binary-file, images, fonts and office templates.
package audit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
)

// RulesVersion names the rules of this package, and changes whenever
// what they find may change: a rule, an expression, the normalisation
// of text (hidden characters, the reading of files) or a limit. A
// verdict kept for a content digest holds for the RulesVersion it was
// made with only; a program that caches verdicts keys them by both.
// TestRulesVersion fails when the code of the rules changes and this
// does not.
const RulesVersion = "7"

// Severity ranks a finding.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical"}

// String returns the severity's name: "info", "low", "medium", "high",
// "critical".
func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// MarshalText writes the severity's name, so JSON shows "high", not 3.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Info || s > Critical {
		return nil, fmt.Errorf("no severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a severity's name, as [ParseSeverity] does.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity reads a severity's name (as String writes it, any case).
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(strings.TrimSpace(name), n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: use one of %s", name, strings.Join(severityNames[:], ", "))
}

// Rule is one check.
type Rule struct {
	// ID names the rule in findings, SARIF, --allow-risk and policies:
	// lower-case words joined by hyphens, e.g. "download-exec".
	ID string
	// Severity is the severity of its findings.
	Severity Severity
	// Summary says in one line what the rule finds.
	Summary string
	// Help says why it matters and what to do.
	Help string
}

// Rules returns every rule, sorted by ID.
func Rules() []Rule {
	out := allRules()
	slices.SortFunc(out, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// LookupRule returns the rule of that id, and false when there is none.
func LookupRule(id string) (Rule, bool) {
	for _, r := range allRules() {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Finding is one match of a rule in a file.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is the path of the file in the skill's tree, slash-separated.
	File string `json:"file"`
	// Line is the 1-based line of the match; 0 for a finding about a
	// whole file (a binary, a link, a size).
	Line int `json:"line,omitempty"`
	// Excerpt is the matched text with its context, control and
	// invisible characters escaped (\x1b, \u202e, ...).
	Excerpt string `json:"excerpt,omitempty"`
	// Message says what was found.
	Message string `json:"message"`
}

// ErrTooLarge: the tree is beyond the audit's own limits.
var ErrTooLarge = errors.New("too large to audit")

// Tree audits a skill's tree (SKILL.md at its root) and returns its
// report: the findings it keeps, sorted by file, line and rule, and the
// count of those past the caps of "Limits" in the package doc, by rule,
// in Omitted. Skill, Source and Root are the caller's to fill in. The
// same tree always gives the same report.
//
// Tree uses fsys from the calling goroutine only, one call at a time,
// so fsys need not be safe for concurrent use; it scans the text of the
// files it read on that goroutine, and past a tree's first 16 MiB on up
// to one goroutine a processor (at most four), which all end before it
// returns (see "Speed" in the package doc).
func Tree(fsys fs.FS) (Report, error) {
	return scanTree(fsys, false, treeWorkers(), serialBytes)
}

// Max returns the highest severity among findings, and false when there
// are none.
func Max(findings []Finding) (Severity, bool) {
	if len(findings) == 0 {
		return 0, false
	}
	m := findings[0].Severity
	for _, f := range findings[1:] {
		m = max(m, f.Severity)
	}
	return m, true
}

// Report is the audit of one skill, as [Tree] returns it and for output.
type Report struct {
	// Skill is the skill's name.
	Skill string `json:"skill"`
	// Source is where it came from, as the user named it.
	Source string `json:"source,omitempty"`
	// Root is the folder the Findings' files are relative to, as shown
	// to the user (and as SARIF's artifact locations are written).
	Root string `json:"root,omitempty"`
	// Findings are the findings kept, within the caps of "Limits" in the
	// package doc; every rule that fired has one, so [Max] of them is the
	// tree's highest severity.
	Findings []Finding `json:"findings"`
	// Omitted counts, by rule, the findings past the caps: found, and
	// not in Findings. Output shows it as "and N more".
	Omitted Omitted `json:"omitted,omitempty"`
	// Error says why the skill could not be audited, and is empty when
	// it was: a report with an Error has no findings, and vouches for
	// nothing. [Tree] never sets it; a program that audits many skills
	// reports with it the one it could not read, and audits the rest.
	Error string `json:"error,omitempty"`
}

// WriteSARIF writes reports as one SARIF 2.1.0 log that GitHub code
// scanning accepts: one run whose tool lists every rule, a result per
// finding (and one per rule with findings past the caps), and one
// invocation, which did not succeed when a report has an Error, each such
// report a notification of it. A property SARIF gives a default (an index
// of -1, an empty list) is left out where the audit has no value for it.
func WriteSARIF(w io.Writer, reports []Report, opts ...Option) error {
	return writeSARIF(w, reports, opts...)
}

// Escape writes control, invisible and deceptive characters of s as
// escapes (\x0a, \u202e), as excerpts are written. Finding.File is the
// file's path as it is (a key for SARIF and --allow-risk); a program that
// prints it for a person prints Escape(f.File).
func Escape(s string) string { return escape(s) }
