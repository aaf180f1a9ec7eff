package process

import (
	"bytes"
	"fmt"
	"testing"
)

// TestTailBuffer checks rule 5: however much is written, and in whatever
// pieces, the buffer keeps exactly the last bytes and no more memory.
func TestTailBuffer(t *testing.T) {
	t.Parallel()
	data := make([]byte, 10<<20)
	for i := range data {
		data[i] = 'a' + byte(i%26)
	}
	for _, keep := range []int{1, 100, DefaultStderrTail} {
		for _, piece := range []int{1, 7, 4096, 100 << 10, len(data)} {
			t.Run(fmt.Sprintf("keep %d, pieces of %d", keep, piece), func(t *testing.T) {
				t.Parallel()
				tb := tailBuffer{max: keep}
				for rest := data; len(rest) > 0; {
					n := min(piece, len(rest))
					tb.Write(rest[:n])
					rest = rest[n:]
				}
				if want := data[len(data)-keep:]; !bytes.Equal(tb.bytes(), want) {
					t.Errorf("kept %.20q (%d bytes), want %.20q (%d bytes)", tb.bytes(), len(tb.bytes()), want, len(want))
				}
				if cap(tb.buf) > 2*keep+64 {
					t.Errorf("buffer capacity %d, want at most %d", cap(tb.buf), 2*keep+64)
				}
			})
		}
	}
}

func TestTailBufferString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		writes []string
		keep   int
		want   string
	}{
		{[]string{"hello"}, 10, "hello"},
		{[]string{"héllo"}, 4, "llo"},            // the cut falls inside é
		{[]string{"日本語"}, 4, "語"},                // 3-byte characters
		{[]string{"😀😀"}, 7, "😀"},                 // 4-byte characters
		{[]string{"\x80\x80ok"}, 10, "\uFFFDok"}, // not cut: invalid start replaced
		{[]string{"ok\xe6\x97"}, 10, "ok\uFFFD"}, // a character cut by the end
		{[]string{"\xff\xff\xffabcd"}, 5, "abcd"},
		{[]string{"ab", "\xffc"}, 4, "\uFFFDc"},
	}
	for _, tt := range tests {
		tb := tailBuffer{max: tt.keep}
		for _, w := range tt.writes {
			tb.Write([]byte(w))
		}
		if got := tb.String(); got != tt.want {
			t.Errorf("tail %d of %q = %q, want %q", tt.keep, tt.writes, got, tt.want)
		}
	}
}
