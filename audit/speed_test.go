package audit_test

import (
	"testing"
	"testing/fstest"

	"github.com/agentadaptor/agentadaptor/audit"
	"github.com/agentadaptor/agentadaptor/internal/testkit/audittext"
)

// BenchmarkOrdinary audits 4 MiB of ordinary instructions.
func BenchmarkOrdinary(b *testing.B) {
	benchmarkText(b, audittext.Ordinary(4<<20, 1))
}

// BenchmarkOrdinaryWithProgram audits 4 MiB of ordinary instructions
// beside a program of the skill, which SKILL.md runs by its path: rule
// 23 resolves the paths the instructions' commands run against it.
func BenchmarkOrdinaryWithProgram(b *testing.B) {
	text := audittext.Ordinary(4<<20, 1)
	m := fstest.MapFS{
		"SKILL.md":     {Data: []byte(front + "Read notes.md, then run `./scripts/x.sh`.\n")},
		"notes.md":     {Data: []byte(text)},
		"scripts/x.sh": {Data: []byte("#!/bin/sh\necho x\n")},
	}
	benchmarkTree(b, m, len(text))
}

// BenchmarkDenseKeywords audits 8 MiB of lines dense with the rules' own
// keywords: the prefilter's worst case, every line a candidate.
func BenchmarkDenseKeywords(b *testing.B) {
	benchmarkText(b, audittext.DenseKeywords(8<<20, 1))
}

// BenchmarkConfirmations audits 1 MiB of downloads presented as the
// skill's prerequisite, each offered on the user's confirmation: every
// line asks rules 5 and 6 of the seven lines around it.
func BenchmarkConfirmations(b *testing.B) {
	benchmarkText(b, audittext.Confirmations(1<<20, 1))
}

// BenchmarkPromptedScript audits 1 MiB of a script of downloads behind
// prompts.
func BenchmarkPromptedScript(b *testing.B) {
	m := fstest.MapFS{
		"SKILL.md": {Data: []byte(front + "Run scripts/setup.sh.\n")},
		"setup.sh": {Data: []byte(audittext.PromptedScript(1<<20, 1))},
	}
	benchmarkTree(b, m, 1<<20)
}

// BenchmarkShortLines audits 4 MiB of lines of one or two of the
// rules' keywords.
func BenchmarkShortLines(b *testing.B) {
	benchmarkText(b, audittext.ShortLines(4<<20, 1))
}

// BenchmarkQuietLines audits 4 MiB of empty lines and lines of one
// word, among which a line of one of the rules' keywords every 64 lines
// or so: nearly every line is passed over.
func BenchmarkQuietLines(b *testing.B) {
	benchmarkText(b, audittext.QuietLines(4<<20, 1))
}

// BenchmarkSpacedKeywords audits 4 MiB of lines of one of the rules'
// keywords, each followed by six empty lines: no line is passed over.
func BenchmarkSpacedKeywords(b *testing.B) {
	benchmarkText(b, audittext.SpacedKeywords(4<<20, 1))
}

// BenchmarkLongLines audits 4 MiB of ordinary instructions in lines of
// 256 KiB, which the audit reads in overlapping pieces.
func BenchmarkLongLines(b *testing.B) {
	benchmarkText(b, audittext.LongLines(4<<20, 256<<10, 1))
}

// BenchmarkNonASCII audits 4 MiB of instructions with words outside
// ASCII on nearly every line.
func BenchmarkNonASCII(b *testing.B) {
	benchmarkText(b, audittext.NonASCII(4<<20, 1))
}

// BenchmarkCRLF audits 4 MiB of ordinary instructions with CRLF line
// ends.
func BenchmarkCRLF(b *testing.B) {
	benchmarkText(b, audittext.CRLF(4<<20, 1))
}

// BenchmarkTinyFiles audits 4,000 files of 1 KiB of ordinary
// instructions.
func BenchmarkTinyFiles(b *testing.B) {
	m := fstest.MapFS{}
	for name, text := range audittext.Tree(4000, 1<<10, audittext.Ordinary) {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	benchmarkTree(b, m, 4000<<10)
}

func benchmarkText(b *testing.B, text string) {
	m := fstest.MapFS{
		"SKILL.md": {Data: []byte(front + "Read notes.md.\n")},
		"notes.md": {Data: []byte(text)},
	}
	benchmarkTree(b, m, len(text))
}

func benchmarkTree(b *testing.B, m fstest.MapFS, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := audit.Tree(m); err != nil {
			b.Fatal(err)
		}
	}
}
