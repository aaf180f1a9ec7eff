package audit

import (
	"encoding/base64"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agentadaptor/agentadaptor/audit/internal/prefilter"
)

// expr is a regular expression of rules 5-15 and 21 (exprs.go), and its
// index in the table the prefilter is built from (lineExprs), which
// exprIDs sets once, as the package is initialised.
type expr struct {
	*lazyRegexp
	id int
	// quick, when not nil, is MatchString written by hand (matchers.go),
	// which the prefiltered audit asks first; index is FindStringIndex
	// written by hand, which it asks instead.
	quick func(string) bool
	index func(string) []int
	// cond: the prefilter's condition is asked before index, which
	// reads every word of a line that only touches the expression
	// (ordinary text, long lines) at more cost than the condition.
	cond bool
}

// re is the expression of a case-insensitive pattern.
func re(p string) *expr { return &expr{lazyRegexp: lazyCompile(`(?i)` + p), id: -1} }

// withQuick sets e's quick.
func withQuick(e *expr, quick func(string) bool) *expr {
	e.quick = quick
	return e
}

// withIndex sets e's index.
func withIndex(e *expr, index func(string) []int) *expr {
	e.index = index
	return e
}

// withCondIndex sets e's index, asked after the prefilter's condition.
func withCondIndex(e *expr, index func(string) []int) *expr {
	e.index, e.cond = index, true
	return e
}

// shell names a shell a download can be piped into.
const shell = `(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?(?:env\s+)?(?:ba|z|k|da|fi|c|tc)?sh\b`

// interpreter names an interpreter that runs what it reads from stdin (not
// its -c, -m or -e argument).
const interpreter = `(?:sudo\s+)?(?:\S*/)?(?:python[0-9.]*|perl|ruby|node|php)\s*(?:-\s*)?(?:$|[;&)|]|-[^cme\s])`

// Rule 5: download and run.
var downloadExec = []*expr{
	withIndex(re(`\b(?:curl|wget|fetch)\b[^|\n]*\|\s*(?:`+shell+`|`+interpreter+`)`), findDownloadPipe),
	re(`\b(?:source|\.|(?:ba|z)?sh)\s+<\(\s*(?:curl|wget)\b`),
	withCondIndex(re(`\b(?:(?:ba|z)?sh|python[0-9.]*|perl|ruby|node)\s+-c\s+["']?\$\(\s*(?:curl|wget)\b`), findShellDownload),
	re(`\beval\s+["']?\$\(\s*(?:curl|wget)\b`),
	withQuick(re(`\b(?:iex|invoke-expression)\b[\s(]*(?:\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget|\(?\s*new-object\s+(?:system\.)?net\.webclient)`), matchIexDownload),
	withIndex(re(`\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(?:iex|invoke-expression)\b`), findWebPipe),
	re(`\.downloadstring\([^\n]*\b(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\b[^\n]*\.downloadstring\(`),
	withCondIndex(re(`\b(?:pip[0-9.]*|pipx|uv\s+pip|uv\s+tool)\s+install\b[^\n]*?\s(?:git\+)?(?:https?|ssh)://`), findPipURL),
	re(`\bnpm\s+(?:i|install|add)\b[^\n]*?\s(?:git\+(?:https?|ssh)://|https?://\S+\.(?:tgz|tar\.gz))`),
}

// programURL is a link to a program or an archive (rule 6).
var programURL = withQuick(re(`(?:https?|ftp)://[^\s)"'<>\]]+?\.(?:exe|msi|dmg|pkg|zip|7z|rar|scr|bat|cmd|ps1|appimage|jar|vbs)(?:[?#][^\s)"'<>\]]*)?(?:[\s)"'<>\],;.!]|$)`), matchProgramURL)

// Rule 6's contexts.
var (
	archivePassword = re(`\bpassword\b|\bpass(?:code|wd)?\s*[:=]`)
	suspectHost     = re(`(?:https?|ftp)://(?:(?:\d{1,3}\.){3}\d{1,3}|[^/\s]*\b(?:glot\.io|pastebin\.com|paste\.ee|hastebin|rentry\.(?:co|org)|transfer\.sh|mega\.nz|mediafire\.com|gofile\.io|catbox\.moe|anonfiles|filebin|bit\.ly|tinyurl\.com|is\.gd|ngrok|trycloudflare\.com|webhook\.site))`)
	plainHTTP       = re(`\bhttp://([^/\s:"')]+)`)
	prerequisite    = re(`\bbefore\s+(?:using|you\s+use|running|you\s+run|invoking)\s+(?:this|the)\s+skill|\bthis\s+skill\s+(?:requires|needs|depends\s+on)\b[^.\n]{0,80}\b(?:installed|install|download|run)|\bthis\s+skill\s+(?:requires|needs|depends\s+on)\s+(?:the\s+)?[\w.-]+\s+(?:helper|agent|driver|daemon|companion|component)\b|\byou\s+must\s+(?:first\s+)?(?:install|download|run|execute)\b|\bmust\s+be\s+(?:installed|running|downloaded)\s+(?:first|before)|\b(?:required|mandatory)\s+(?:prerequisite|helper|agent|driver|component|core)\b`)
)

// Rule 7: decoded and run, or hidden.
var obfuscatedExec = []*expr{
	withIndex(re(`\bbase64\s+(?:-[a-z]*d\b|--decode)[^|\n]*\|\s*(?:`+shell+`|`+interpreter+`)`), findBase64Pipe),
	re(`\b(?:xxd\s+-r|openssl\s+(?:base64|enc)\b[^|\n]*\s-d)\b[^|\n]*\|\s*` + shell),
	withQuick(re(`\b(?:eval|exec|(?:ba|z)?sh\s+-c)\s*["']?\$\([^)\n]*\bbase64\s+(?:-[a-z]*d\b|--decode)`), matchEvalDecode),
	withCondIndex(re(`\bexec\s*\([^\n]*b64decode\b`), findExecDecode),
	encodedCommand,
	re(`frombase64string\([^\n]*\b(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\b[^\n]*frombase64string\(`),
	hiddenWindow,
}

// Rule 7's runs that show no payload: PowerShell's encoded command (in
// UTF-16) and a hidden window.
var (
	encodedCommand = withQuick(re(`\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*\s-(?:e|ec|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}`), matchEncodedCommand)
	hiddenWindow   = re(`\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*\s-(?:w|windowstyle)\s+hidden\b`)
)

// Rule 8: reverse shells.
var reverseShell = []*expr{
	withCondIndex(re(`/dev/(?:tcp|udp)/[^/\s]+/\d+`), findDevSocket),
	withQuick(re(`\b(?:nc|ncat|netcat)\b[^\n;|]*\s-[a-z]*[ec]\s+\S*sh\b`), matchNcShell),
	withCondIndex(re(`\bsocat\b[^\n]*\b(?:exec|system):`), findSocatExec),
	re(`\b(?:ba)?sh\s+-i\b[^\n]*\|\s*(?:nc|ncat|netcat)\b`),
}

// Rule 9: credential stores' paths.
var credentialPath = withIndex(re(`(?:~|\$home|\$\{home\}|%userprofile%|\$env:userprofile)[/\\]\.ssh\b|\.ssh[/\\]id_|\.aws[/\\](?:credentials|config)\b|\.config[/\\]gcloud\b|application_default_credentials\.json|(?:~|\$home)[/\\]\.azure\b|\.kube[/\\]config\b|(?:~|\$home)[/\\]\.netrc\b|\.git-credentials\b|\.docker[/\\]config\.json|(?:~|\$home)[/\\]\.(?:npmrc|pypirc)\b`), findCredentialPath)

// dotEnv finds a .env file's name.
var (
	dotEnv = &expr{lazyRegexp: lazyCompile(`(?:^|[^\w.$-])\.env(?:\.([A-Za-z]+))?(?:[^\w.-]|$)`), id: -1}
)

// Rule 10: secret stores.
var secretStore = []*expr{
	withIndex(re(`(?:chrome|chromium|edge|brave|opera|vivaldi|firefox|user data|profiles?)[^\n]{0,60}[/\\](?:login data|cookies|web data|local state)\b`), findBrowserStore),
	withIndex(re(`(?:firefox|mozilla|profiles?)[^\n]{0,60}[/\\](?:key4\.db|logins\.json|cookies\.sqlite)\b`), findFirefoxStore),
	withCondIndex(re(`\bsecurity\s+(?:dump-keychain|find-(?:generic|internet)-password\b[^\n|;]*\s-[a-z]*[wg][a-z]*\b)`), findKeychain),
	withCondIndex(re(`\bwallet\.dat\b|[/\\]exodus[/\\]|\bexodus\.wallet\b|\.electrum[/\\]wallets|\bnkbihfbeogaeaoehlefnkodbefgpgknn\b|\bkeystore[/\\]utc--`), findWallet),
	withIndex(re(`\b(?:cat|cp|scp|base64|xxd|head|tail|get-content|gc|tar|zip|rsync|open|read_text|readfile)\b[^\n|;]*\.ssh[/\\](?:id_[a-z0-9_]+(?:[^.\w]|$)|\*)`), findKeyRead),
	withIndex(re(`\b(?:tar|zip|cp\s+-r|rsync|copy-item)\b[^\n|;]*(?:~|\$home)[/\\]\.(?:ssh|aws|gnupg)\b`), findArchiveHome),
	withCondIndex(re(`\bfind\b[^\n]*-i?name\s+["']?\.env\b|\b(?:r?glob)\([^)\n]*\.env\b|\bget-childitem\b[^\n]*-(?:filter|include)\s+["']?\.env\b`), findEnvSearch),
}

// Rule 11 and 12: sending.
var (
	send     = re(`\b(?:curl|wget|nc|ncat|netcat|invoke-restmethod|invoke-webrequest|iwr|irm)\b|\brequests\.(?:post|put)\(|\bfetch\(|\baxios\.(?:post|put)\(|\burllib\.request\b|\bhttp\.post\b`)
	upload   = withQuick(re(`\bcurl\b[^\n]*(?:\s-d\s*["']?@|--data(?:-binary|-raw|-urlencode)?[=\s]+["']?@|\s-F\s*["']?[\w.-]+=@|\s-T\s|--upload-file\b|--form\s+["']?[\w.-]+=@)|\bwget\b[^\n]*--post-file\b|-infile\b|\b(?:nc|ncat|netcat)\s+(?:-\S+\s+)*\S+\s+\d+\s*<\s*\S`), matchUpload)
	dropHost = re(`\b(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|pastebin\.com|transfer\.sh|discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot|interact\.sh|oast\.(?:fun|pro|live|site|online|me)|burpcollaborator\.net|trycloudflare\.com|hookbin\.com|beeceptor\.com)\b`)
)

// envDump finds the environment dumped: env, printenv or set piped or
// substituted, os.environ or process.env serialized, PowerShell's env:
// drive listed. Only whether one of them matches is asked, so each
// alternative is an expression of its own, with its own prefilter.
var envDump = []*expr{
	withQuick(re(`^(?:env|printenv|set)\s*(?:\||\))`), matchEnvPipe("")),
	withQuick(re(`[|;&(]\s*(?:env|printenv|set)\s*(?:\||\))`), matchEnvPipe("|;&(")),
	withQuick(re(`\$\(\s*(?:env|printenv|set)\s*(?:\||\))`), matchEnvPipe("$(")),
	withQuick(re(`\bprintenv\b[^\n]*\|\s*(?:curl|wget|nc)`), matchPrintenvPipe),
	re(`\bdict\(\s*os\.environ\s*\)`),
	re(`os\.environ\.copy\(\)`),
	re(`json\.dumps\(\s*(?:dict\()?os\.environ`),
	re(`json\.stringify\(\s*process\.env\s*\)`),
	re(`\bget-childitem\s+env:`),
	re(`\bgci\s+env:`),
}

// window is how far from a sending command, in bytes, what it sends is
// looked for.
const window = 200

// placeholder finds the hosts that documentation of an attack uses (rule
// 21): attacker.com, evil.example, ATTACKER_IP, YOUR_IP, <attacker>.
var placeholder = withQuick(re(`(?:^|[^\w.-])(?:attacker|evil|malicious|example)(?:\.[a-z]{2,}\b|[-_](?:ip|host|server|domain)\b)|\b(?:attacker|your|lhost|evil)[_-]?(?:ip|host|server)\b|\$(?:lhost|attacker\w*)\b|<(?:attacker|your)[^>]*>|://(?:attacker|evil)(?:[/:]|$)`), matchPlaceholder)

// Rule 21's targets: hosts a line's URLs, /dev/tcp paths, socat addresses
// and nc commands aim at, and IPv4 literals.
var (
	targetHost = re(`(?:https?|ftp|wss?)://(?:[^@/\s]*@)?([^/\s:"'<>)\]]+)|/dev/(?:tcp|udp)/([^/\s]+)/|\btcp[46]?(?:-connect)?:([^:,\s]+):\d|\b(?:nc|ncat|netcat)\b[^\n|;]*?\s([A-Za-z0-9][\w.-]*\.[A-Za-z]{2,}|\d{1,3}(?:\.\d{1,3}){3})\s+\d{1,5}\b`)
	ipv4       = lazyCompile(`(?:^|[^\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:[^\w.]|$)`)
)

// realTarget reports whether a line (t, whose strings are h) also aims
// at a real host: a routable IPv4 literal, a drop host, or a URL or host
// that is not a placeholder. Then a placeholder elsewhere on the line
// does not make it an example.
func (s *scanner) realTarget(h *prefilter.Hits, t string) bool {
	if s.match(h, dropHost, t) {
		return true
	}
	if s.exhaustive {
		for _, m := range ipv4.FindAllStringSubmatch(t, -1) {
			if routable(m[1:]) {
				return true
			}
		}
	} else if routableIn(t) {
		return true
	}
	if !s.may(h, targetHost) {
		return false
	}
	real := false
	s.targetHosts(t, func(h string) bool {
		real = !placeholderHost(h, !s.exhaustive)
		return !real
	})
	return real
}

// targetHosts calls yield with the host of each match of targetHost in
// t, in order, until yield returns false; as targetHosts (matchers.go)
// finds them by hand in an audit with the prefilter.
func (s *scanner) targetHosts(t string, yield func(host string) bool) {
	if !s.exhaustive {
		targetHosts(t, yield)
		return
	}
	for _, m := range targetHost.FindAllStringSubmatch(t, -1) {
		for _, h := range m[1:] {
			if h != "" && !yield(h) {
				return
			}
		}
	}
}

// routable reports whether an IPv4 address's four parts name a host on
// the internet: not loopback, private, 0.0.0.0 or a documentation range.
func routable(p []string) bool {
	var b [4]int
	for i, s := range p {
		n, err := strconv.Atoi(s)
		if err != nil || n > 255 {
			return false
		}
		b[i] = n
	}
	switch {
	case b[0] == 127, b[0] == 10, b[0] == 172 && b[1] >= 16 && b[1] < 32, b[0] == 192 && b[1] == 168,
		b == [4]int{}, b[0] == 192 && b[1] == 0 && b[2] == 2, b[0] == 198 && b[1] == 51 && b[2] == 100,
		b[0] == 203 && b[1] == 0 && b[2] == 113:
		return false
	}
	return true
}

// placeholderHost reports whether a host is a placeholder, a variable, or
// this machine or a private or documentation address; with quick set,
// placeholder's matcher written by hand (matchPlaceholder) reads it.
func placeholderHost(h string, quick bool) bool {
	h = strings.ToLower(strings.Trim(h, "[]"))
	if strings.ContainsAny(h, "<>{}$%") || quick && placeholder.quick(" "+h) || !quick && placeholder.MatchString(" "+h) {
		return true
	}
	for _, w := range []string{"attacker", "evil", "malicious", "example", "your", "lhost", "rhost", "target", "victim"} {
		if strings.Contains(h, w) {
			return true
		}
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".test") || strings.HasSuffix(h, ".invalid") {
		return true
	}
	if m := ipv4.FindStringSubmatch(h); m != nil {
		return !routable(m[1:])
	}
	return !strings.Contains(h, ".")
}

// Rules 13-15: injections.
var (
	override = []*expr{
		withIndex(re(`\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+|my\s+)*(?:previous|prior|above|earlier|preceding|original|system|safety)\s+(?:instructions|prompts?|rules|guidelines|directives|messages|context)\b`), findOverride),
		withCondIndex(re(`\b(?:your|the\s+following\s+is\s+(?:your|the))\s+new\s+system\s+prompt\b|\bnew\s+system\s+prompt\s*:`), findNewPrompt),
		withCondIndex(re(`\byou\s+are\s+now\s+in\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b`), findNowInMode),
	}
	conceal = []*expr{
		withIndex(re(`\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|inform|notify|reveal|disclose)\s+(?:(?:this|that|it|anything|any\s+of\s+this|these\s+steps)\s+)?(?:to\s+)?(?:the\s+)?user(?:\s*(?:$|[.,;:!)\]-])|\s+(?:that|what|you|anything|about\s+(?:this|it|these|that|the\s+(?:command|script|download|upload|request|file|step|installation)s?)\b))`), findConceal),
		re(`\bhide\s+(?:this|that|it|these|them|the\s+\w+)\s+from\s+the\s+user\b`),
		re(`\bwithout\s+(?:the\s+user(?:'s)?\s+(?:knowing|noticing|knowledge|awareness)|(?:telling|informing|notifying|alerting)\s+the\s+user)\b`),
		re(`\b(?:keep|remain)\s+(?:this|it)\s+(?:secret|hidden)\s+from\s+the\s+user\b`),
		re(`\bthe\s+user\s+(?:must|should|shall)\s+(?:not|never)\s+(?:know|find\s+out|notice|learn)\b`),
	}
)

// patterns applies rules 5-15, 21 and 23 to line i. Each expression runs
// only when the prefilter finds on the line the strings its matches
// hold (see may).
func (s *scanner) patterns(name string, lines []line, i int, hiddenText bool) {
	l := &lines[i]
	if s.runsFile && l.ctx != hidden {
		s.runsIn(name, *l)
	}
	t, h := l.clean, l.hits
	if h != nil && (h.Empty() || !h.TouchesAny(askedOfLine)) {
		// No expression that is asked of the line may match: each has
		// a condition (TestEveryExpressionHasACondition), and the line
		// holds a string of none's trigger. Every check below asks
		// first whether the line touches one of askedOfLine (first,
		// find, credentialMatch), and asks the others only once one
		// of them matched.
		return
	}
	at := func(loc []int) span { return span{t, loc[0]} }

	// example: the line aims at a placeholder host (rule 21), asked
	// once, when a rule that it turns into an example matched.
	example, exampleKnown := false, false
	// report is s.add, but an attack aimed at a placeholder host is rule
	// 21's documentation of it.
	report := func(rule string, loc []int, msg string) {
		if !exampleKnown {
			example = s.match(h, placeholder, t) && !s.realTarget(h, t)
			exampleKnown = true
		}
		if example {
			s.add(ruleAttackExample, name, l.n, at(loc), msg+", aimed at a placeholder host (an example)")
			return
		}
		s.add(rule, name, l.n, at(loc), msg)
	}
	if loc := s.first(h, reverseShell, t); loc != nil {
		report(ruleReverseShell, loc, "a reverse shell")
	}
	if loc := s.first(h, obfuscatedExec, t); loc != nil {
		if s.inertDecode(name, lines, i) {
			s.add(ruleAttackExample, name, l.n, at(loc), "encoded code run in one step, whose payload is elided or aimed at a placeholder host (an example)")
		} else {
			s.add(ruleObfuscatedExec, name, l.n, at(loc), "encoded or hidden code run in one step")
		}
	}
	dl, prog := s.first(h, downloadExec, t), s.find(h, programURL, t)
	if dl != nil || prog != nil {
		loc := dl
		if loc == nil {
			loc = prog
		}
		if why, soft := s.prerequisiteContext(lines, i, hiddenText); why != "" {
			if soft && dl != nil && s.confirmed(name, lines, i, dl[0]) {
				s.add(ruleDownloadExec, name, l.n, at(loc), "code downloaded and run in one step, "+why+", offered only on the user's confirmation")
			} else {
				report(rulePrerequisiteInstall, loc, "a download to run, "+why)
			}
		} else if dl != nil {
			s.add(ruleDownloadExec, name, l.n, at(loc), "code downloaded and run in one step")
		}
	}
	// The line's secret store and credential path, each found once.
	secretLoc := s.first(h, secretStore, t)
	var credLoc []int
	credKnown := false
	credential := func() []int {
		if !credKnown {
			credLoc, credKnown = s.credentialMatch(h, t, false), true
		}
		return credLoc
	}
	if loc := secretLoc; loc != nil {
		if isMarkdown(name) && l.ctx == code && labelled(t[:loc[0]]) && !sendsNear(lines, i) && s.fileLayout(name).sampleReport(l.n) {
			s.add(ruleAttackExample, name, l.n, at(loc), "a read of a secret store, quoted after a label in a code block (an example)")
		} else {
			s.add(ruleSecretStoreRead, name, l.n, at(loc), "a read of a secret store")
		}
	} else if loc := credential(); loc != nil {
		s.add(ruleCredentialRead, name, l.n, at(loc), "a credential store's path")
	}
	if loc := s.find(h, send, t); loc != nil {
		// What the command sends is read near it: a long line (a JSON
		// string holding a whole document) is not one command.
		w := t[max(0, loc[0]-window):min(len(t), loc[0]+window)]
		// A window that is the whole line is read as the line.
		whole := len(w) == len(t)
		in := func(e *expr) bool {
			if whole {
				return s.match(h, e, t)
			}
			return s.mayPart(h, e) && s.matchIn(e, w)
		}
		secret := func() bool {
			if whole {
				return secretLoc != nil
			}
			return s.firstPart(h, secretStore, w) != nil
		}
		credentialIn := func() bool {
			if whole {
				return credential() != nil
			}
			return s.credentialMatch(h, w, true) != nil
		}
		// dumped reports whether the environment is sent: on the whole
		// line, only when it touches one of envDump's expressions (whose
		// ids are in a row), as first asks.
		dumped := func() bool {
			if whole && !s.exhaustive && !h.AnyTouched(envDump[0].id, envDump[0].id+len(envDump)) {
				return false
			}
			return slices.ContainsFunc(envDump, in)
		}
		uploads, uploadKnown := false, false
		uploading := func() bool {
			if !uploadKnown {
				uploads, uploadKnown = in(upload), true
			}
			return uploads
		}
		switch {
		case in(dropHost):
			report(ruleExfiltration, loc, "data sent to a drop host")
		case dumped():
			report(ruleExfiltration, loc, "the environment sent to the network")
		case uploading() && (credentialIn() || secret()):
			report(ruleExfiltration, loc, "a credential file sent to the network")
		case uploading():
			s.add(ruleFileUpload, name, l.n, at(loc), "a local file posted to a URL")
		case s.pipedSecret(h, w, loc[0]-max(0, loc[0]-window)):
			report(ruleExfiltration, loc, "a credential file piped to the network")
		}
	}
	if loc := s.first(h, override, t); loc != nil {
		s.injection(name, *l, loc, ruleInstructionOverride, "an instruction to ignore previous instructions")
	}
	if loc := s.first(h, conceal, t); loc != nil {
		s.injection(name, *l, loc, ruleConcealFromUser, "an instruction to hide something from the user")
	}
}

// injection reports rule 13's or 14's phrase, or rule 15 when it is
// quoted.
func (s *scanner) injection(name string, l line, loc []int, rule, msg string) {
	if l.ctx == code && !proseLike(name) || quoted(l.clean, loc[0], loc[1]) ||
		l.ctx == prose && isMarkdown(name) && tableCell(l.clean, loc[0], loc[1]) && s.fileLayout(name).catalogue(l.n, l.clean[:loc[0]]) {
		s.add(ruleQuotedInjection, name, l.n, span{l.clean, loc[0]}, msg+", quoted")
		return
	}
	s.add(rule, name, l.n, span{l.clean, loc[0]}, msg)
}

// quoted reports whether the phrase at bytes [at, end) of a line is
// enclosed by a matching pair of backticks or quotation marks: an opening
// one before it and its closing one after it.
func quoted(t string, at, end int) bool {
	before, after := t[:at], t[end:]
	for _, q := range []string{"`", `"`} {
		if strings.Count(before, q)%2 == 1 && strings.Contains(after, q) {
			return true
		}
	}
	for _, p := range [][2]string{{"“", "”"}, {"«", "»"}} {
		if strings.LastIndex(before, p[0]) > strings.LastIndex(before, p[1]) && strings.Contains(after, p[1]) {
			return true
		}
	}
	return false
}

// proseLike reports whether a file that is not Markdown is still text
// that an agent reads as instructions (YAML, HTML), so that its lines
// are not code, where rule 13's and 14's phrases are quoted.
func proseLike(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".html", ".htm":
		return true
	}
	return false
}

// prerequisiteContext says why a download on line i is rule 6's, or "";
// soft is set when the reason is the wording around it (a password, a
// prerequisite), which a confirmation asked of the user answers.
func (s *scanner) prerequisiteContext(lines []line, i int, hiddenText bool) (why string, soft bool) {
	l := lines[i]
	// The lines around, joined, are written only for an expression that
	// may match them.
	near := func() string {
		var near strings.Builder
		for j := max(0, i-3); j < i; j++ {
			near.WriteString(lines[j].clean + "\n")
		}
		near.WriteString(l.clean)
		return near.String()
	}
	nearAfter := func() string {
		t := near()
		for j := i + 1; j < min(len(lines), i+4); j++ {
			t += "\n" + lines[j].clean
		}
		return t
	}
	switch {
	case l.ctx == hidden:
		return "in an HTML comment", false
	case hiddenText:
		return "in a file with hidden characters", false
	case s.match(l.hits, suspectHost, l.clean):
		return "from a bare IP address, a paste or a file-drop host", false
	case s.may(l.hits, plainHTTP) && insecureHost(l.clean):
		return "over plain http", false
	case s.matchNear(lines, max(0, i-3), min(len(lines), i+4)-1, archivePassword, nearPassword, nearAfter):
		return "with a password", true
	case s.matchNear(lines, max(0, i-3), i, prerequisite, nearPrerequisite, near):
		return "presented as the skill's prerequisite", true
	}
	return "", false
}

// insecureHost reports whether a line fetches over plain http from a host
// other than this machine.
func insecureHost(t string) bool {
	for _, m := range plainHTTP.FindAllStringSubmatch(t, -1) {
		switch h := strings.ToLower(m[1]); {
		case h == "localhost", strings.HasPrefix(h, "127."), h == "0.0.0.0", strings.HasPrefix(h, "["),
			strings.HasSuffix(h, ".local"), strings.HasSuffix(h, ".localhost"), strings.HasSuffix(h, ".internal"):
		case strings.Contains(h, "example"), strings.ContainsAny(h, "<>{}$"):
		default:
			return true
		}
	}
	return false
}

// credentialMatch finds rule 9's paths in t: a line whose strings are
// h, or, with part set, a part of it.
func (s *scanner) credentialMatch(h *prefilter.Hits, t string, part bool) []int {
	if part {
		if s.mayPart(h, credentialPath) {
			if loc := s.findIn(credentialPath, t); loc != nil {
				return loc
			}
		}
	} else if loc := s.find(h, credentialPath, t); loc != nil {
		return loc
	}
	if !s.mayIn(h, dotEnv, part) {
		return nil
	}
	q, r := 0, len(t)
	if !part {
		var ok bool
		if q, r, ok = s.window(h, dotEnv, t); !ok {
			return nil
		}
	}
	var loc []int
	if s.exhaustive {
		loc = envFile(t[q:r])
	} else {
		loc = firstEnvFile(t[q:r])
	}
	if loc != nil {
		loc[0], loc[1] = q+loc[0], q+loc[1]
	}
	return loc
}

// envFile returns the first match of dotEnv in t (the matches do not
// overlap) whose suffix is not a template's, or nil; firstEnvFile
// (matchers.go) finds the same by hand.
func envFile(t string) []int {
	for _, m := range dotEnv.FindAllStringSubmatchIndex(t, -1) {
		if m[2] >= 0 && envTemplate(t[m[2]:m[3]]) {
			continue
		}
		return m[:2]
	}
	return nil
}

// envTemplate reports whether a .env file's suffix makes it a template
// that holds no secret (.env.example).
func envTemplate(suffix string) bool {
	switch strings.ToLower(suffix) {
	case "example", "sample", "template", "dist", "defaults", "default", "tmpl", "tpl", "schema":
		return true
	}
	return false
}

// pipedSecret reports whether a credential path is piped into the sending
// command at byte offset at of t, a part of a line whose strings are h.
func (s *scanner) pipedSecret(h *prefilter.Hits, t string, at int) bool {
	before := t[:at]
	p := strings.LastIndex(before, "|")
	if p < 0 {
		return false
	}
	return s.credentialMatch(h, before[:p], true) != nil || s.firstPart(h, secretStore, before[:p]) != nil
}

// lineExprs is every expression of rules 5-15 and 21 that runs on a
// line, a part of it or a few lines: the table the prefilter is built
// from. (placeholderHost runs placeholder on a host name alone, and
// ipv4 runs only after placeholder matched.)
var lineExprs = slices.Concat(downloadExec, obfuscatedExec, reverseShell, secretStore, override, conceal, envDump,
	[]*expr{programURL, archivePassword, suspectHost, plainHTTP, prerequisite, credentialPath, dotEnv,
		send, upload, dropHost, placeholder, targetHost})

// lineFilter is the prefilter of lineExprs, loaded on the first audit
// (linefilter.go), so that a program that links the audit and audits
// nothing (agentskills list, --help) does not pay for it at start.
var lineFilter = sync.OnceValue(func() *prefilter.Filter { return loadLineFilter(lineExprs) })

// exprIDs numbers lineExprs: each one's id is its index there, which the
// prefilter's answers are given by.
var exprIDs = func() int {
	for i, e := range lineExprs {
		e.id = i
	}
	return len(lineExprs)
}()

// askedOfLine is the set of the expressions that patterns asks of every
// line, before any matched (by id: bit id%64 of word id/64); it asks
// the others (envDump, upload, dropHost, prerequisite, placeholder,
// targetHost...) only once one of these matched. A line that touches
// none of them is left at once.
var askedOfLine = func() []uint64 {
	set := make([]uint64, (exprIDs+63)/64)
	for _, e := range slices.Concat(downloadExec, obfuscatedExec, reverseShell, secretStore, override, conceal,
		[]*expr{programURL, credentialPath, dotEnv, send}) {
		set[e.id/64] |= 1 << (e.id % 64)
	}
	return set
}()

// newLineFilter builds the prefilter of exprs, numbered by exprIDs.
func newLineFilter(exprs []*expr) *prefilter.Filter {
	res := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		res[i] = e.regexp()
	}
	f, err := prefilter.New(res)
	if err != nil {
		panic(err)
	}
	return f
}

// lf returns lineFilter(), kept by the scanner, which asks it for
// nearly every expression of nearly every line.
func (s *scanner) lf() *prefilter.Filter {
	if s.filter == nil {
		s.filter = lineFilter()
	}
	return s.filter
}

// may reports whether e may match the line whose strings are h: false
// when the line lacks the strings every match of e holds. An audit with
// exhaustive set runs every expression on every line.
func (s *scanner) may(h *prefilter.Hits, e *expr) bool {
	if !s.exhaustive && (e.quick != nil || e.index != nil) && !e.cond {
		// Its matcher written by hand answers exactly, for less than
		// its condition costs: only whether the line touches it is
		// asked (unless cond keeps the condition first).
		return h.Touched(e.id)
	}
	return s.exhaustive || s.lf().May(h, e.id)
}

// mayPart is may for a part of the line, or for lines joined (h their
// strings together); mayIn is may or mayPart.
func (s *scanner) mayPart(h *prefilter.Hits, e *expr) bool {
	return s.exhaustive || s.lf().MayPart(h, e.id)
}

func (s *scanner) mayIn(h *prefilter.Hits, e *expr, part bool) bool {
	if part {
		return s.mayPart(h, e)
	}
	return s.may(h, e)
}

// find returns the first match of e in t, a line whose strings are h.
func (s *scanner) find(h *prefilter.Hits, e *expr, t string) []int {
	if !s.may(h, e) {
		return nil
	}
	if !s.exhaustive {
		// An expression that is a set of keywords is answered by the
		// prefilter's occurrences.
		if lo, hi, ok := s.lf().Find(h, e.id); ok {
			if lo < 0 {
				return nil
			}
			return s.loc(lo, hi)
		}
	}
	q, r, ok := s.window(h, e, t)
	if !ok {
		return nil
	}
	// What findIn returns is the caller's own: it is placed on the line
	// where it is.
	loc := s.findIn(e, t[q:r])
	if loc != nil {
		loc[0], loc[1] = q+loc[0], q+loc[1]
	}
	return loc
}

// loc returns the location [lo, hi), cut from a block that find's
// locations share, so that the many of a text dense with keywords are
// not an allocation each.
func (s *scanner) loc(lo, hi int) []int {
	if len(s.locs) < 2 {
		s.locs = make([]int, 256)
	}
	l := s.locs[:2:2]
	s.locs = s.locs[2:]
	l[0], l[1] = lo, hi
	return l
}

// match reports whether e matches t, a line whose strings are h.
func (s *scanner) match(h *prefilter.Hits, e *expr, t string) bool {
	if !s.may(h, e) {
		return false
	}
	if !s.exhaustive {
		if lo, _, ok := s.lf().Find(h, e.id); ok {
			return lo >= 0
		}
	}
	q, r, ok := s.window(h, e, t)
	return ok && s.matchIn(e, t[q:r])
}

// window returns the part t[q:r] of a line (whose strings are h) that
// holds every match of e, with the character before it and the one
// after it, so that e finds there what it finds on the line
// ([prefilter.Filter.Window]); ok is false when e cannot match.
func (s *scanner) window(h *prefilter.Hits, e *expr, t string) (q, r int, ok bool) {
	if s.exhaustive {
		return 0, len(t), true
	}
	lo, hi := s.lf().Window(h, e.id, len(t))
	if lo > hi {
		return 0, 0, false
	}
	q, r = lo, hi
	for q > 0 && q < len(t) && !utf8.RuneStart(t[q]) {
		q--
	}
	if q > 0 {
		_, n := utf8.DecodeLastRuneInString(t[:q])
		q -= n
	}
	if r < len(t) {
		_, n := utf8.DecodeRuneInString(t[r:])
		r += n
	}
	return q, r, true
}

// matchLines reports whether e matches text(), lines joined by
// newlines, which it writes only when the lines' strings allow a match.
func (s *scanner) matchLines(lines []line, e *expr, text func() string) bool {
	if !s.exhaustive {
		u := s.union
		u.Reset()
		for _, l := range lines {
			u.Add(l.hits)
		}
		if !s.lf().MayLines(u, e.id) {
			return false
		}
	}
	return s.matchIn(e, text())
}

// first returns the first match in t, a line whose strings are h, of
// the first of es that matches. The expressions of es have ids in a
// row (lineExprs holds each slice of them whole).
func (s *scanner) first(h *prefilter.Hits, es []*expr, t string) []int {
	if s.exhaustive {
		for _, e := range es {
			if loc := s.find(h, e, t); loc != nil {
				return loc
			}
		}
		return nil
	}
	// Only the expressions the line touches may match: each has a
	// condition (TestEveryExpressionHasACondition), so may says no of
	// one the line does not touch. They are found by the bits of the
	// touched set rather than asked one by one: most of a rule's
	// expressions are not touched on a line that touches one.
	lo, hi := es[0].id, es[0].id+len(es)
	for i := h.NextTouched(lo, hi); i < hi; i = h.NextTouched(i+1, hi) {
		if loc := s.find(h, es[i-lo], t); loc != nil {
			return loc
		}
	}
	return nil
}

// firstPart is first for t a part of the line.
func (s *scanner) firstPart(h *prefilter.Hits, es []*expr, t string) []int {
	for _, e := range es {
		if s.mayPart(h, e) {
			if loc := s.findIn(e, t); loc != nil {
				return loc
			}
		}
	}
	return nil
}

// Rule 21's documentation of rules 3, 7 and 10, rule 15's table of
// injection phrases, and rule 5's installer offered on the user's
// confirmation: the narrow shapes in which security skills quote what
// the other rules find, and in which honest skills offer an installer.
// Each runs only on a line where the rule it lowers matched, with the
// line's text alone (not the prefilter's strings), so it finds the
// same with the prefilter and without.
var (
	// decodeSite is each place on a line that decodes base64.
	decodeSite = lazyCompile(`(?i)b64decode\s*\(|frombase64string\s*\(|\bbase64\s+(?:-[a-z]*d\b|--decode)`)
	// decodeArg finds what a decode decodes, when that is the whole of
	// its argument: a quoted literal or a variable given to b64decode or
	// FromBase64String (groups 1 and 2), or a word without expansions
	// echoed into base64 -d (group 3).
	decodeArg = lazyCompile("(?i)(?:b64decode|frombase64string)\\s*\\(\\s*(?:b?[\"']([^\"'\\n]*)[\"']|([A-Za-z_]\\w*))\\s*\\)|\\b(?:echo|printf)\\s+(?:-[a-z]+\\s+)*[\"']?([^\"'\\s|;$`]*)[\"']?\\s*\\|\\s*base64\\s+(?:-[a-z]*d\\b|--decode)")
	// redefined is b64decode or FromBase64String given another meaning.
	redefined = lazyCompile(`(?i)\bdef\s+b64decode\b|(?:b64decode|frombase64string)\s*=[^=]|\bfunction\s+\S*frombase64string`)
	// onlyImports is Python that imports modules of its standard
	// library (stdlibModule) and does nothing else, or nothing at all.
	// Importing runs the module's code: another module (one installed
	// from a package index, or shipped beside the skill) could do
	// anything, so importing it is not inert.
	onlyImports = lazyCompile(`^\s*(?:(?:import\s+` + stdlibModule + `(?:\s*,\s*` + stdlibModule + `)*|from\s+` + stdlibModule + `\s+import\s+[\w., ]+)\s*;?\s*)*$`)
	// furtherHidden is a payload that hides a further layer: decoding,
	// escapes, code built from parts, or dynamic evaluation.
	furtherHidden = lazyCompile(`(?i)base64|b64|decode|fromhex|unhexlify|decompress|rot13|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\bchr\s*\(|\beval\b|\bexec\b|getattr|__import__|\biex\b|invoke-expression`)
)

// inertDecode reports whether every payload that line i decodes and
// runs is shown, and shown inert (rule 21): elided to nothing that runs
// (an empty literal, "...", or imports only, as Python decodes "aW1w...":
// characters outside base64 dropped), or a plain network command aimed
// at a placeholder host and at no real target, with no further layer
// of hiding. A payload in a variable is looked for in an assignment of
// a literal on the three lines before. Only documentation (a Markdown
// file) shows a payload: a script runs what it decodes. PowerShell's
// encoded command and hidden window show no payload, and are never
// inert, nor is a decode near a redefinition of the decoder.
func (s *scanner) inertDecode(name string, lines []line, i int) bool {
	t, h := lines[i].clean, lines[i].hits
	if !isMarkdown(name) || s.match(h, encodedCommand, t) || s.match(h, hiddenWindow, t) {
		return false
	}
	for j := max(0, i-3); j < min(len(lines), i+4); j++ {
		if redefines(&lines[j], !s.exhaustive) {
			return false
		}
	}
	if !s.exhaustive && !mayDecodeArg(t) {
		return false
	}
	args := s.decodeArgs(t)
	if len(args) == 0 || len(args) != s.decodeSites(t) {
		return false
	}
	// What runs is the decode alone: with each decode taken out, the
	// line holds only the wrapper that runs it (exec(...), | sh,
	// iex(...)), nothing joined to it ("or urlopen(...)", "+ fromhex").
	// In prose (a table's row) the code is the inline span that holds
	// the decodes.
	lo, hi := 0, len(t)
	if lines[i].ctx != code {
		if a, b := strings.LastIndexByte(t[:args[0][0]], '`'), strings.IndexByte(t[args[len(args)-1][1]:], '`'); a >= 0 && b >= 0 {
			lo, hi = a+1, args[len(args)-1][1]+b
		}
	}
	var rest strings.Builder
	prev := lo
	for _, a := range args {
		rest.WriteString(t[prev:a[0]])
		prev = a[1]
	}
	rest.WriteString(t[prev:hi])
	if !s.onlyWrapper(rest.String()) {
		return false
	}
	for _, a := range args {
		var payload string
		switch {
		case a[2] >= 0:
			payload = t[a[2]:a[3]]
		case a[6] >= 0:
			payload = t[a[6]:a[7]]
		default:
			var ok bool
			if payload, ok = assigned(lines[max(0, i-3):i], t[:a[4]], t[a[4]:a[5]]); !ok {
				return false
			}
		}
		d, ok := decodeBase64(payload)
		if !ok || !inertPayload(d) {
			return false
		}
	}
	return true
}

// redefines reports whether a line gives b64decode or
// FromBase64String another meaning (with quick set, as matchRedefined
// reads it), asking redefined once of a line
// however many windows hold it, and only of a line that holds what
// each of its matches holds: "64", and "def", "=" or "function" (in
// any case: no character outside ASCII folds to one of their letters).
func redefines(l *line, quick bool) bool {
	if !l.redefinesAsked {
		t := l.clean
		l.redefines = strings.Contains(t, "64") &&
			(strings.IndexByte(t, '=') >= 0 || containsFold(t, "def") || containsFold(t, "function")) &&
			(quick && matchRedefined(t) || !quick && redefined.MatchString(t))
		l.redefinesAsked = true
	}
	return l.redefines
}

// containsFold reports whether s holds word, a lower-case ASCII word
// without k or s, in any case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if s[i]|0x20 == word[0] && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// assigned returns the literal assigned to variable v on the last of
// lines that assigns one, when v is not named again between there and
// the decode (before, the text of the decode's line before it): no
// "v += ...", no second assignment of another kind.
func assigned(lines []line, before, v string) (string, bool) {
	if namesWord(before, v) {
		return "", false
	}
	for j := len(lines) - 1; j >= 0; j-- {
		t := lines[j].clean
		ms := assignment.FindAllStringSubmatchIndex(t, -1)
		for k := len(ms) - 1; k >= 0; k-- {
			m := ms[k]
			if t[m[2]:m[3]] == v {
				return t[m[4]:m[5]], !namesWord(t[m[1]:], v)
			}
		}
		if namesWord(t, v) {
			return "", false
		}
	}
	return "", false
}

// namesWord reports whether t holds the identifier v as a word of its
// own.
func namesWord(t, v string) bool {
	word := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(t[i:], v)
		if j < 0 {
			return false
		}
		j += i
		if (j == 0 || !word(t[j-1])) && (j+len(v) == len(t) || !word(t[j+len(v)])) {
			return true
		}
		i = j + 1
	}
}

// assignment is a literal assigned to a variable, the whole of the
// statement.
var assignment = lazyCompile(`(?:^|[^\w.])([A-Za-z_]\w*)\s*=\s*b?["']([^"'\n]*)["']\s*(?:;|#|$)`)

// decodeBase64 decodes s as a lenient decoder does (Python's b64decode,
// base64 -d -i): characters outside the alphabet dropped, padding
// optional. It returns false when what it decodes is not text, and when
// s holds - or _: Python's b64decode drops them and urlsafe_b64decode
// reads them as + and /, so the two run different payloads from one
// literal.
func decodeBase64(s string) (string, bool) {
	if strings.ContainsAny(s, "-_") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			b.WriteByte(c)
		}
	}
	e := b.String()
	if len(e)%4 == 1 {
		e = e[:len(e)-1]
	}
	d, err := base64.RawStdEncoding.DecodeString(e)
	if err != nil || !utf8.Valid(d) {
		return "", false
	}
	return string(d), true
}

// inertPayload reports whether decoded code runs nothing (imports at
// most), or is a plain network command aimed at a placeholder host and
// at no real target, hiding nothing further: rule 21's example.
func inertPayload(d string) bool {
	if onlyImports.MatchString(d) {
		return true
	}
	if furtherHidden.MatchString(d) {
		return false
	}
	all := &scanner{exhaustive: true}
	network := all.match(nil, send, d) || all.first(nil, downloadExec, d) != nil || all.first(nil, reverseShell, d) != nil
	if !network || !all.match(nil, placeholder, d) || all.realTarget(nil, d) || statements(d) > 1 {
		return false
	}
	// Every host it aims at is a placeholder no one can own: not a host
	// of the attacker's with "example" or "evil" in a label.
	for _, m := range targetHost.FindAllStringSubmatch(d, -1) {
		for _, h := range m[1:] {
			if h != "" && !reservedHost(h) {
				return false
			}
		}
	}
	return true
}

// wrapperWords are what runs a decoded payload, and nothing else.
var wrapperWords = lazyCompile(`(?i)\b(?:exec|eval|base64|decode|iex|invoke-expression|text\.encoding|utf8|unicode|ascii|getstring|convert|system|(?:ba|z)?sh|python3?|-c)\b|#.*$`)

// wrapperTrim is what a line that only runs its decodes holds besides
// wrapperWords.
const wrapperTrim = " \t()[]\"'$|.:;`"

// onlyWrapper reports whether a line, its decodes taken out, holds only
// what runs them; wrapped (matchers.go) tells the same by hand.
func (s *scanner) onlyWrapper(rest string) bool {
	if !s.exhaustive {
		return wrapped(rest)
	}
	rest = wrapperWords.ReplaceAllString(rest, "")
	return strings.Trim(rest, wrapperTrim) == ""
}

// decodeSites returns how many matches of decodeSite t holds;
// countDecodeSites (matchers.go) counts them by hand.
func (s *scanner) decodeSites(t string) int {
	if !s.exhaustive {
		return countDecodeSites(t)
	}
	return len(decodeSite.FindAllStringIndex(t, -1))
}

// decodeArgs returns decodeArg's matches in t; decodeArgs (matchers.go)
// finds them by hand.
func (s *scanner) decodeArgs(t string) [][]int {
	if !s.exhaustive {
		return decodeArgs(t)
	}
	return decodeArg.FindAllStringSubmatchIndex(t, -1)
}

// stdlibModule is a module of Python's standard library that payloads
// import: importing it runs no code of the skill's author.
const stdlibModule = `(?:os|sys|subprocess|socket|base64|binascii|codecs|zlib|json|time|shutil|platform|pathlib|pty|ssl|getpass|urllib|http)(?:\.\w+)*\b`

// statementBreak separates the commands of decoded code: a sequence, a
// conditional, or a command substitution that runs one inside another
// ("curl https://a.example/$(rm -rf ~)").
var statementBreak = lazyCompile("[;\n`]|&&|\\|\\||\\$\\(")

// statements counts the statements of decoded code that are not
// imports: a payload of one command is documentation, one that runs a
// second beside it ("; rm -rf ~") is not.
func statements(d string) int {
	n := 0
	for _, st := range statementBreak.Split(d, -1) {
		if st = strings.TrimSpace(st); st != "" && !onlyImports.MatchString(st) {
			n++
		}
	}
	return n
}

// reservedHost reports whether a host is one no one can register: a
// reserved name (.example, .test, .invalid, .localhost, example.com),
// the placeholders documentation names (attacker.com, evil.com), a name
// without a dot (ATTACKER_IP, evil), a variable, or an address
// placeholderHost takes.
func reservedHost(h string) bool {
	h = strings.ToLower(strings.Trim(h, "[]"))
	if !strings.Contains(h, ".") || strings.ContainsAny(h, "<>{}$%") {
		return true
	}
	for _, d := range []string{"example", "test", "invalid", "localhost", "example.com", "example.net", "example.org", "attacker.com", "evil.com"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return ipv4.MatchString(h) && placeholderHost(h, false)
}

// reportLabel is the label a security skill's example report puts
// before the code it quotes ("Pattern: open(...)").
var reportLabel = lazyCompile(`(?i)^\s*(?:[-*>]\s*)?(?:pattern|example|match(?:ed)?|evidence|finding|found|snippet|detected|flagged|red\s+flag|e\.g\.)\s*:\s*$`)

// labelled reports whether the text before a match on a line of a code
// block is a report's label alone: the line quotes the code as a
// finding, and no shell or interpreter runs it as written.
func labelled(before string) bool { return reportLabel.MatchString(before) }

// sendsNear reports whether line i or one of the three each side holds
// a command that sends data (rule 11's), which a key read beside it
// could feed.
func sendsNear(lines []line, i int) bool {
	all := &scanner{exhaustive: true}
	for _, l := range lines[max(0, i-3):min(len(lines), i+4)] {
		if all.match(nil, send, l.clean) {
			return true
		}
	}
	return false
}

// tableCell reports whether the phrase at bytes [at, end) of a line of a
// Markdown table is a whole cell of it: the name of a pattern in a
// table of them, as a quotation is.
func tableCell(t string, at, end int) bool {
	if !strings.HasPrefix(strings.TrimSpace(t), "|") {
		return false
	}
	i := strings.LastIndexByte(t[:at], '|')
	j := strings.IndexByte(t[end:], '|')
	if i < 0 || j < 0 {
		return false
	}
	cell := strings.Trim(strings.TrimSpace(t[i+1:end+j]), "`*_\"'")
	return strings.EqualFold(cell, t[at:end])
}

// namesInvisible finds, on a line, the name of the invisible characters
// rule 3 finds.
var namesInvisible = lazyCompile(`(?i)zero[- ]?width|invisible|\bu\+(?:200[bcd]|2060|feff)\b|\bzw(?:sp|nj|j)\b|word[- ]joiner`)

// documentedInvisible reports whether one invisible character at bytes
// [at, end) of a raw line inside a word is shown as an example: in a
// Markdown file, between a matching pair of quotation marks or
// backticks, on a line that names such characters. The rules that read
// text read it without the character, so it hides nothing from them.
func documentedInvisible(name, raw string, at, end int) bool {
	return isMarkdown(name) && quoted(raw, at, end) && namesInvisible.MatchString(raw)
}

// Rule 5's confirmation: wording that has the agent ask the user before
// an installer runs, and, in a script, a prompt whose default is no.
var (
	askUser  = lazyCompile(`(?i)\bask(?:ing)?\s+(?:the\s+user|them)\s+(?:first\b|for\s+(?:(?:their|explicit)\s+)?(?:confirmation|permission|approval|consent)\b|whether\b|if\s+(?:they|it)\b|before\b)|\bconfirm\s+with\s+the\s+user\b|\b(?:only\s+)?(?:if|once|after)\s+(?:the\s+user|they)\s+(?:has\s+|have\s+)?(?:agree[sd]?|confirm(?:s|ed)?|approve[sd]?|says?\s+yes|said\s+yes|accept(?:s|ed)?)\b|\bwith\s+the\s+user'?s\s+(?:explicit\s+)?(?:permission|consent|approval|confirmation)\b`)
	notAsked = lazyCompile(`(?i)\b(?:do\s+not|don'?t|never|no\s+need\s+to|needn'?t|without)\s+(?:\w+\s+){0,2}?(?:ask|asking|confirm|confirmation|permission|prompt|prompting|approval|consent)|\b(?:user|they)\s+(?:has|have)\s+already\s+(?:agreed|confirmed|approved|accepted|consented)|\balready\s+(?:been\s+)?(?:approved|confirmed|agreed|consented)|\bassume\b[^.\n]*\b(?:agree|confirm|approve|yes|consent)|\bpre-?approved\b|\bauto-?(?:approve|confirm)|\|\|\s*(?:true|:)(?:\s|$)|\byes\s*\|`)
	// readNo is a shell prompt whose default is no; yesTest a test of
	// the reply for yes that opens a branch: [ "$a" = y ]; then, [[ $a
	// =~ ^[Yy] ]] &&, or a case arm [Yy]*).
	readNo  = lazyCompile(`\bread\b|\[y/N\]|\(y/N\)`)
	yesTest = lazyCompile(`(?m)(?:^|[^!=<>])(?:==|=~|=)\s*["']?\^?(?:\[[Yy]+\]|[Yy](?:es)?)[^\]\n;|&]{0,12}\]{1,2}\s*(?:;\s*then\b|&&)|(?:\[[Yy]+\]\*?|^\s*[Yy](?:es)?\*?)\)`)
)

// aboutRunning is what an ask must be about: installing or running.
var aboutRunning = lazyCompile(`(?i)\b(?:install(?:s|ed|er|ing)?|run(?:s|ning)?|download(?:s|ed|ing)?|set\s*up|proceed|execute)\b`)

// askedFirst reports whether t asks the user first (askUser) in a
// sentence about installing or running (aboutRunning) that starts
// before byte cut; read counts the bytes it looked at (for tests). A
// sentence runs from the end of the one before (., !, ? or a blank
// line) to its own end; each is read once, however many asks it holds.
func askedFirst(t string, cut int) (asked bool, read int) {
	seen, lo := 0, 0         // the sentence of a byte before seen starts at lo
	hi := -1                 // where the sentence of the last ask ends
	doneLo, doneHi := -1, -1 // the last sentence read
	for _, m := range askUser.FindAllStringIndex(t, -1) {
		if m[0] >= cut {
			break
		}
		for ; seen < m[0]; seen++ {
			if strings.IndexByte(".!?", t[seen]) >= 0 || t[seen] == '\n' && seen > 0 && t[seen-1] == '\n' {
				lo = seen + 1
			}
			read++
		}
		// The first ., !, ? or blank line at or after the ask's end: the
		// one found for the ask before, if this one ends before it.
		if m[1] > hi {
			for hi = m[1]; hi < len(t); hi++ {
				read++
				if strings.IndexByte(".!?", t[hi]) >= 0 || t[hi] == '\n' && hi+1 < len(t) && t[hi+1] == '\n' {
					break
				}
			}
		}
		if lo == doneLo && hi == doneHi {
			continue
		}
		doneLo, doneHi = lo, hi
		read += hi - lo
		if aboutRunning.MatchString(t[lo:hi]) {
			return true, read
		}
	}
	return false, read
}

// confirmed reports whether the download on line i is offered only on
// the user's confirmation: in Markdown, wording on it or the three
// lines each side that has the agent ask the user first (ask the user
// whether to install it, only if the user agrees) in a sentence about
// installing or running, and none that undoes
// it (do not ask, the user has already approved, || true); in a script,
// on the three lines before it (and its own line before byte at), a
// read of a reply to a prompt whose default is no ([y/N]) and a test of
// the reply for yes, the download in that test's branch.
func confirmed(name string, lines []line, i, at int) bool {
	var near strings.Builder
	lo, hi := max(0, i-3), min(len(lines), i+4)
	if !isMarkdown(name) {
		hi = i + 1
	}
	for _, l := range lines[lo:hi] {
		near.WriteString(l.clean + "\n")
	}
	t := near.String()
	if notAsked.MatchString(t) || askedAnyway.MatchString(t) {
		return false
	}
	if isMarkdown(name) {
		// The ask comes before the command (on the lines above it, or
		// its own line before it): one after it ("if that fails, ask the
		// user", "then ask whether it worked") gates nothing.
		cut := 0
		for _, l := range lines[lo:i] {
			cut += len(l.clean) + 1
		}
		cut += at
		asked, _ := askedFirst(t, cut)
		return asked
	}
	return scriptConfirmed(lines, i, at)
}

// scriptBudget is how many bytes of the lines before its downloads a
// script's confirmations may read (rule 5): 16 KiB and a sixteenth of
// the file.
func scriptBudget(text string) int { return 16<<10 + len(text)/16 }

// withinScriptBudget spends on the confirmation of the download at byte
// at of line i of a script the bytes it reads before it, and reports
// whether the file's budget held them; once it does not, it holds
// nothing more. An exhaustive audit spends it as the others do.
func (s *scanner) withinScriptBudget(lines []line, i, at int) bool {
	n := at
	for _, l := range lines[max(0, i-3):i] {
		n += len(l.clean) + 1
	}
	if n > s.scriptBudget {
		s.scriptBudget = 0
		return false
	}
	s.scriptBudget -= n
	return true
}

// scriptConfirmed is confirmed's answer in a script, where no wording
// undoes an ask: a read of a reply to a prompt whose default is no on
// the lines before line i or on it before byte at, and the download in
// the branch of a test of the reply for yes.
func scriptConfirmed(lines []line, i, at int) bool {
	lo := max(0, i-3)
	var before strings.Builder
	for _, l := range lines[lo:i] {
		before.WriteString(l.clean + "\n")
	}
	before.WriteString(lines[i].clean[:at])
	b := before.String()
	m := readNo.FindAllString(b, -1)
	if !slices.Contains(m, "read") || !slices.Contains(m, "[y/N]") && !slices.Contains(m, "(y/N)") {
		return false
	}
	// The download runs in the branch the last test for yes opens (then,
	// &&, a case arm): no other branch, end of it, exit or || between.
	tests := yesTest.FindAllStringIndex(b, -1)
	if len(tests) == 0 || otherBranch.MatchString(b[tests[len(tests)-1][1]:]) {
		return false
	}
	// The test is of the reply as read: its variable, not given a
	// default of yes (${a:-y}) nor assigned after the read.
	reads := readVar.FindAllStringSubmatchIndex(b, -1)
	if len(reads) == 0 {
		return false
	}
	r := reads[len(reads)-1]
	v, after := b[r[2]:r[3]], b[r[1]:]
	last := tests[len(tests)-1]
	if last[0] < r[1] {
		return false
	}
	v = regexp.QuoteMeta(v)
	if regexp.MustCompile(`(?:^|[^\w$])` + v + `\s*=[^=~]|\$\{` + v + `:?[-=]`).MatchString(after) {
		return false
	}
	return regexp.MustCompile(`\$\{?` + v + `\b\}?`).MatchString(after[:last[1]-r[1]])
}

// readVar is a shell read of a reply and its variable (the last word).
var readVar = lazyCompile(`\bread\b[^;\n|&]*?\s([A-Za-z_]\w*)\s*(?:;|\n|&&|$)`)

// askedAnyway is wording that runs the command whatever the user says.
var askedAnyway = lazyCompile(`(?i)\b(?:regardless|either\s+way|anyway|in\s+any\s+case|no\s+matter\s+(?:what|the\s+answer)|whatever\s+(?:they|the\s+user)\s+(?:answer|say|reply|choose|decide)s?)\b`)

// otherBranch ends the branch of a shell test, or starts another.
var otherBranch = lazyCompile(`\b(?:else|elif|fi|esac|done|exit|return)\b|;;|\|\|`)

// catalogueHeader is a table header's cell that names a column of
// quoted phrases: a catalogue lists them, a table of steps or rules
// does not.
var catalogueHeader = lazyCompile(`(?i)\b(?:patterns?|phrases?|payloads?|examples?|indicators?|signatures?|attacks?|techniques?|injections?|triggers?|strings?|red\s+flags?|detects?|detections?)\b`)

// separatorRow is a Markdown table's row under its header.
var separatorRow = lazyCompile(`^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$`)

// reportFence opens or closes a code block of plain text: no language,
// or one that names text, so no reader of the file takes it for code
// to run.
var reportFence = lazyCompile("(?i)^\\s*(?:```|~~~)\\s*(?:text|txt|plain|plaintext|output|log)?\\s*$")

// reportLine is a line of a sample report, after any decoration that
// is not ASCII (a box's edge, a coloured mark): a finding's header
// ("[high] path:27", "CRITICAL [CODE-EXEC] path:42"), a field under a
// label of up to three words, the first capitalised ("   Why: ...",
// "Pattern: open(...)"), or nothing. A label followed by "(", "=" or
// "{", or one a keyword starts ("function Pattern:"), is code: a shell
// function named "Pattern:", a Python annotation.
var reportLine = lazyCompile(`^\s*(?:\[(?:critical|high|medium|low|info)\]\s|[A-Z]{3,}\b|[A-Z][a-z]*(?: [A-Za-z]+){0,2}:\s+[^\s(={]|$)`)

// reportCode is what a line of a sample report never holds: a shell's
// sequence, pipe or substitution, a block's brace, Python's dunder names
// (__import__, __annotations__) that would make a labelled line code.
var reportCode = lazyCompile("[;|&`{}]|\\$\\(|__")

// runExample is wording that has the agent run what a file quotes.
var runExample = lazyCompile(`(?i)\b(?:run|execute|exec|try|paste|reproduce|replay|follow|obey|carry\s+out)\b[^.\n]{0,40}\b(?:examples?|patterns?|samples?|snippets?|blocks?|match(?:es)?|evidence|findings?|lines?|reports?|tables?|rows?|entries|phrases?)\b`)

// layout is what rule 21's sample report and rule 15's catalogue need
// of a whole Markdown file, beyond the lines around a match: the code
// blocks that are sample reports, the tables with their headers, and
// whether prose has the agent run or follow what the file quotes.
type layout struct {
	told    bool     // prose says to run, paste or follow the quoted text
	reports [][2]int // the first and last line of each sample report
	tables  []table
}

// table is a Markdown table's rows under its separator row.
type table struct {
	from, to int    // the rows' first and last line
	header   string // the row above the separator
}

// fileLayout returns the layout of the file being read, reading it on
// the first call for the file.
func (s *scanner) fileLayout(name string) *layout {
	if s.layout != nil {
		return s.layout
	}
	lay := &layout{}
	s.layout = lay
	r := newLineReader(name, s.file)
	// The places that may hide a character are searched for, as no
	// survey lists them.
	r.plain, r.hides = isASCII(s.file), newHideCursor(s.file, survey{})
	var prev line
	block, report := 0, false // the open block's first line, and whether it is a report so far
	var tab *table
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if l.ctx == code {
			t := strings.TrimLeftFunc(l.clean, func(r rune) bool { return r >= utf8.RuneSelf || unicode.IsSpace(r) })
			fence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
			if block == 0 {
				block, report = l.n, true
			}
			report = report && (fence && reportFence.MatchString(t) || !fence && reportLine.MatchString(t) && !reportCode.MatchString(t))
		} else if block != 0 {
			if report {
				lay.reports = append(lay.reports, [2]int{block, prev.n})
			}
			block = 0
		}
		row := l.ctx == prose && strings.HasPrefix(strings.TrimSpace(l.clean), "|")
		switch {
		case row && separatorRow.MatchString(l.clean) && prev.n == l.n-1 && strings.HasPrefix(strings.TrimSpace(prev.clean), "|"):
			lay.tables = append(lay.tables, table{from: l.n + 1, to: l.n, header: prev.clean})
			tab = &lay.tables[len(lay.tables)-1]
		case row && tab != nil && tab.to == l.n-1:
			tab.to = l.n
		case l.ctx != code && runExample.MatchString(l.clean):
			lay.told = true
		}
		prev = l
	}
	if block != 0 && report {
		lay.reports = append(lay.reports, [2]int{block, prev.n})
	}
	return lay
}

// sampleReport reports whether line n lies in a code block that is a
// sample report, every line of it a report's, in a file whose prose
// does not have the agent run what it quotes.
func (lay *layout) sampleReport(n int) bool {
	if lay.told {
		return false
	}
	// The blocks are in the file's order: the last that starts at or
	// before n is the only one that may hold it.
	k := sort.Search(len(lay.reports), func(k int) bool { return lay.reports[k][0] > n }) - 1
	return k >= 0 && n <= lay.reports[k][1]
}

// catalogue reports whether the cell of line n that follows before
// (the line up to a phrase) lies in a table's column whose header
// names quoted phrases, in a file whose prose does not have the agent
// follow the table.
func (lay *layout) catalogue(n int, before string) bool {
	if lay.told {
		return false
	}
	k := sort.Search(len(lay.tables), func(k int) bool { return lay.tables[k].from > n }) - 1
	if k < 0 || n > lay.tables[k].to {
		return false
	}
	cells := strings.Split(lay.tables[k].header, "|")
	col := strings.Count(before, "|")
	return col < len(cells) && catalogueHeader.MatchString(cells[col])
}
