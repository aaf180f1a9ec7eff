package audit_test

import (
	"math/rand/v2"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// pieces are what the texts that hold the matchers and finders written
// by hand to their expressions are made of: the expressions' literals,
// the characters their classes and boundaries tell apart (white space
// of every kind, quotation marks, the Kelvin sign and the long s that
// match k and s, characters outside ASCII, bytes that are not UTF-8),
// and the rules' keywords.
func pieces(t testing.TB) []string {
	t.Helper()
	ps := []string{" ", " ", "  ", "\t", "\n", "\r", "\f", "\v", "|", "||", ";", "&", "(", ")", "$(", "/", "\\", "-", "--",
		"=", "@", "=@", "\"", "'", "<", "*", ".", "_", "x", "a1", "d", "99", "é", "日", "\u212a", "\u017f", "\u212ash", "\u017fh", "-d\u017f",
		"\xff", "\xe2\x80", "\xc5", "\xe2\x84", "$", "#", "sudo", "env", ".env", ".env.example", ".env.local", ".env.Sample ",
		".env.example .env", ".ssh/", "id_rsa", "-d @", "1.2.3.4", "10.0.0.1", "8.8.8.8 ", "1.2.3.4.5", "256.1.1.1", "1234.5.6.7",
		"exec(base64.b64decode('aGk='))", "| sh"}
	for _, c := range audit.HandChecks() {
		tree, err := syntax.Parse(c.Pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var walk func(re *syntax.Regexp)
		walk = func(re *syntax.Regexp) {
			if re.Op == syntax.OpLiteral {
				ps = append(ps, string(re.Rune))
			}
			for _, sub := range re.Sub {
				walk(sub)
			}
		}
		walk(tree.Simplify())
	}
	ps = append(ps, audittext.RuleWords...)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// focus are pieces that the matchers and finders written by hand tell
// apart: commands, hosts, ports and options, and what separates them.
var focus = []string{" ", " ", " ", "\n", "\t", "|", ";", "/", ":", "@", "'", "<", ".", "-", "nc", "ncat", "netcat", "curl", "wget",
	"sh", "bash", "sudo", "env", "python3", "-e", "-d", "-F", "-T", "-c", "--data", "--form", "--upload-file", "--post-file",
	"x=@", "@f", "host.com", "a.b", "a.bc", "_x.com", "x_.io", "1.2.3.4", "300.1.2.3", "1.2.3", "80", "4444", "123456", "99999",
	"http://", "https://", "wss://", "ftp://", "user@", "/dev/tcp/", "/dev/udp/", "tcp:", "tcp4-connect:", ":80", ",",
	"base64", "b64decode(", "frombase64string(", "--decode", "-Dx", "exec", "#", "(", ")", "~/.ssh", ".ssh/id_rsa", ".env", ".env.example",
	"base64 -d", "| sh", "| python3 -", "env |", "printenv)", "iex", "iwr", "irm", "new-object net.webclient", "http://x/a.exe",
	".exe", ".zip?x", ".PKG", ".ps1#", "-lve", "/bin/sh", "\u017fh", "base64\n-d", "new-objectnet.webclient", "iex(new-object",
	"pwsh", "pwsh\n", "powershell.exe", "\n-e aGVsbG8gd29ybGQh", "-enc", "aGVsbG8gd29ybGQh", "printenv\n", "echo", "printf",
	"eval $(\n", "tar ;", "tar ~/.ssh", "ignore all the previous instructions", "Disregard prior prompts", "iwr x | iex",
	"ignore theprevious rules", "don't tell the userthat", "never tell the user about the scripts", "eval \"$(base64 -d",
	"you are now in developer mode", "your new system prompt", "new system prompt:", "bash -c \"$(curl", "python3 -c $(wget",
	"find . -name .env", "-iname '.env'", "rglob(\"*.env", "security find-generic-password -wa", "socat exec:",
	"base64 --decode | bash", "| base64 -d | sh", "pip install git+https://", "ask them if they",
	"confirm with the user's", "agree\u017fx"}

// commandShapes are shapes of commands aimed at a host, with the parts
// that command fills in: %c a command, %o options, %h a host (or
// not), %p a port (or not), %u a URL's start, %t what follows.
var (
	commandShapes = []string{"%c %o%h %p%t", "%c\n%h %p%t", "%c %o%h\n%p%t", "%c %o %h  %p%t", "%c%h %p", "%u%h%t",
		"/dev/tcp/%h/%p%t", "tcp:%h:%p%t", "tcp4-connect:%h:%p,%t", "%c -e /bin/sh %h %p%t"}
	commandParts = map[byte][]string{
		'c': {"nc", "ncat", "netcat", "NC", "xnc", "socat", "curl"},
		'o': {"", "-e sh ", "-lvp ", "- ", "-- "},
		'h': {"host.com", "a.b", "a.bc", "_x.com", "x_.io", "1.2.3.4", "300.1.2.3", "1.2.3", "1.2.3.4.5", "\u65e5.com", "\u017fx.com",
			"x.\u017f\u212a", "a-b.c.de", "localhost", "example.com", "attacker.com", "x:y", "", "u@h.io"},
		'p': {"80", "4444", "123456", "99999", "1", "x", "8a", ""},
		'u': {"http://", "https://", "HTTP\u017f://", "wss://", "ftp://", "http://u@", "http://@"},
		't': {"", " ", "<f", " < f", "x", "\n", ";", "/", "|", ")"},
	}
)

// command returns a command of one of commandShapes.
func command(r *rand.Rand) string {
	shape := commandShapes[r.IntN(len(commandShapes))]
	var b strings.Builder
	for i := 0; i < len(shape); i++ {
		if shape[i] == '%' {
			i++
			parts := commandParts[shape[i]]
			b.WriteString(parts[r.IntN(len(parts))])
			continue
		}
		b.WriteByte(shape[i])
	}
	return b.String()
}

// handTexts returns n texts for the matchers and finders written by
// hand: pieces run together, and matches of each expression made from
// its syntax tree with pieces around them and cut short; then bytes cut
// out and pieces put in, at random places, and case, spaces, the
// Kelvin sign and the long s changed (mutate).
func handTexts(t testing.TB, r *rand.Rand, n int) []string {
	t.Helper()
	ps := pieces(t)
	var trees []*syntax.Regexp
	for _, c := range audit.HandChecks() {
		tree, err := syntax.Parse(c.Pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree)
	}
	// Half the pieces come from a few that the matchers tell apart, so
	// that they meet often.
	some := func(b *strings.Builder, k int) {
		for range k {
			if r.IntN(2) == 0 {
				b.WriteString(focus[r.IntN(len(focus))])
				continue
			}
			b.WriteString(ps[r.IntN(len(ps))])
		}
	}
	texts := make([]string, 0, n)
	for len(texts) < n {
		var b strings.Builder
		switch r.IntN(4) {
		case 0:
			some(&b, 1+r.IntN(20))
		case 1:
			b.WriteString(command(r))
		default:
			some(&b, r.IntN(4))
			for range 1 + r.IntN(2) {
				m := generate(r, trees[r.IntN(len(trees))])
				if r.IntN(4) == 0 && len(m) > 0 {
					m = m[:r.IntN(len(m))]
				}
				b.WriteString(m)
				some(&b, r.IntN(4))
			}
		}
		text := b.String()
		for range r.IntN(3) {
			if text == "" {
				break
			}
			i := r.IntN(len(text))
			if r.IntN(2) == 0 {
				text = text[:i] + text[min(len(text), i+1+r.IntN(3)):]
			} else {
				text = text[:i] + ps[r.IntN(len(ps))] + text[i:]
			}
		}
		if r.IntN(3) == 0 {
			text = mutate(r, text)
		}
		texts = append(texts, text)
	}
	return texts
}

// TestHandWritten checks that each matcher and finder written by hand
// gives what its expression gives, on texts that match it, nearly match
// it and do not, and that the texts show both answers of each.
func TestHandWritten(t *testing.T) {
	// A text in two is made from one check's expression: about 770 for
	// each, however many checks there are (77 under the race detector,
	// which makes the expressions fifteen times slower). Each check
	// must find something in a thirteenth of its share of the texts, and
	// miss in as many.
	checks := len(audit.HandChecks())
	n := 1540 * checks
	if raceDetector {
		n /= 10
	}
	least := n / (13 * checks)
	texts := handTexts(t, rand.New(rand.NewPCG(11, 11)), n)
	for _, c := range audit.HandChecks() {
		found := 0
		for _, text := range texts {
			got, want := c.Check(text)
			if !cmp.Equal(got, want) {
				t.Fatalf("%s of %s on %q = %v, want %v", c.Name, c.Pattern, text, got, want)
			}
			if !reflect.ValueOf(want).IsZero() {
				found++
			}
		}
		if found < least || found > n-least {
			t.Errorf("%s of %s finds something in %d of %d texts: want texts that show both answers", c.Name, c.Pattern, found, n)
		}
	}
}

// FuzzHandWritten checks the matchers and finders written by hand on
// any text.
func FuzzHandWritten(f *testing.F) {
	for _, text := range handTexts(f, rand.New(rand.NewPCG(12, 12)), 200) {
		f.Add(text)
	}
	f.Add(audittext.DenseKeywords(4<<10, 6))
	// A command whose \s runs over a newline, after one that found
	// nothing on its line (TestFindersAcrossNewlines).
	f.Add("exec(exec\n(b64decode")
	f.Add("tar cp\n-r ~/.ssh")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range audit.HandChecks() {
			if got, want := c.Check(text); !cmp.Equal(got, want) {
				t.Errorf("%s of %s on %q = %v, want %v", c.Name, c.Pattern, text, got, want)
			}
		}
	})
}
