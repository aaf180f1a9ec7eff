package audit_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
)

// proseWords are common words of skills' instructions, with the short
// words that occur inside the rules' keywords ("nc" in "once", "user",
// "install", "mode", "example").
var proseWords = strings.Fields(`the a an to of and or in on for with from by is are be this that
it you your user users use using run runs install installed configure config file files folder
path paths mode model models example examples output input data value values function once since
instance reference async sync include process check checks test tests build builds when then if
not no do does should must can will each every first next last before after step steps command
commands script scripts tool tools skill skills agent agents project repository branch commit
review reviews change changes error errors message messages report reports table column row
server client request response token tokens key keys name names type types list lists option
options default defaults setting settings environment variable variables version versions`)

// codeLines are lines of the shapes skills' code blocks hold.
var codeLines = []string{
	"npm install --save-dev typescript",
	"pip install -r requirements.txt",
	"git clone https://github.com/acme/tools.git && cd tools",
	"export PATH=\"$HOME/.local/bin:$PATH\"",
	"python3 scripts/report.py --input data.csv --output out.json",
	"def process(items):\n    return [i.value for i in items if i.ok]",
	"const res = await fetch(url, { method: 'GET' });",
	"for f in *.md; do wc -l \"$f\"; done",
	"docker run --rm -v \"$PWD\":/work acme/tool:1.4 check",
	"kubectl get pods -n default -o wide",
	"curl -s https://api.acme.dev/v1/status | jq .state",
	"go test ./... && go vet ./...",
	"SELECT name, count(*) FROM users GROUP BY name;",
}

// ordinaryText is size bytes of Markdown of the shape of real skills'
// instructions: headings, prose, lists, links and code blocks, made
// from seed.
func ordinaryText(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	words := func(n int) {
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(proseWords[r.IntN(len(proseWords))])
		}
	}
	for b.Len() < size {
		switch r.IntN(6) {
		case 0:
			b.WriteString("## ")
			words(2 + r.IntN(4))
			b.WriteString("\n\n")
		case 1:
			for range 2 + r.IntN(4) {
				b.WriteString("- ")
				words(4 + r.IntN(10))
				b.WriteString("\n")
			}
			b.WriteString("\n")
		case 2:
			b.WriteString("```bash\n")
			for range 1 + r.IntN(5) {
				b.WriteString(codeLines[r.IntN(len(codeLines))] + "\n")
			}
			b.WriteString("```\n\n")
		default:
			for range 2 + r.IntN(4) {
				words(8 + r.IntN(12))
				if r.IntN(4) == 0 {
					b.WriteString(" (see [the guide](https://docs.acme.dev/guide#section))")
				}
				b.WriteString(".\n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()[:size]
}

// denseKeywords is size bytes of lines dense with the rules' own
// keywords: every line holds several of them, and many lines hold a
// whole attack, made from seed.
func denseKeywords(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 2))
	words := ruleWords
	seps := []string{" ", " ", " | ", "/", " -", "\t", "(", " $(", "@"}
	var b strings.Builder
	for b.Len() < size {
		if r.IntN(4) == 0 {
			b.WriteString(hostileLines[r.IntN(len(hostileLines))].line)
			b.WriteString(" ")
		}
		for range 3 + r.IntN(10) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString("\n")
	}
	return b.String()[:size]
}

// ruleWords are the rules' own keywords: the words of their patterns.
var ruleWords = strings.Fields(`curl wget fetch iex invoke-expression iwr irm invoke-webrequest
invoke-restmethod net.webclient downloadstring pip install npm uv git+https:// https:// http://
ftp:// .exe .zip .ps1 password passwd before using this skill requires must first prerequisite
required helper base64 -d --decode xxd openssl eval exec b64decode powershell pwsh -enc
-encodedcommand frombase64string -windowstyle hidden /dev/tcp/ /dev/udp/ nc ncat netcat -e -c
socat exec: system: sh bash zsh -i sudo env python3 perl ruby node php ~/.ssh .ssh/id_rsa
~/.aws/credentials .aws/config .config/gcloud ~/.azure .kube/config ~/.netrc .git-credentials
.docker/config.json ~/.npmrc ~/.pypirc .env .env.local .env.example chrome firefox profiles
login data cookies web data local state key4.db logins.json cookies.sqlite security
dump-keychain find-generic-password -w wallet.dat exodus .electrum/wallets keystore/utc--
cat cp tar zip rsync find -name glob( get-childitem -d @ -F file=@ -T --upload-file
--post-file -infile printenv os.environ process.env webhook.site requestbin pipedream.net
ngrok.io pastebin.com transfer.sh discord.com/api/webhooks api.telegram.org/bot
interact.sh burpcollaborator.net attacker.com evil.com example.com ATTACKER_IP YOUR_IP
$LHOST <attacker> 45.9.148.3 10.0.0.1 ignore disregard forget previous prior instructions
system prompt new you are now in developer mode do not tell mention the user hide this
from without knowing telling`)

// BenchmarkOrdinary audits 4 MiB of ordinary instructions.
func BenchmarkOrdinary(b *testing.B) {
	benchmarkText(b, ordinaryText(4<<20, 1))
}

// BenchmarkDenseKeywords audits 8 MiB of lines dense with the rules' own
// keywords: the prefilter's worst case, every line a candidate.
func BenchmarkDenseKeywords(b *testing.B) {
	benchmarkText(b, denseKeywords(8<<20, 1))
}

func benchmarkText(b *testing.B, text string) {
	m := fstest.MapFS{
		"SKILL.md": {Data: []byte(front + "Read notes.md.\n")},
		"notes.md": {Data: []byte(text)},
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.Tree(m); err != nil {
			b.Fatal(err)
		}
	}
}
