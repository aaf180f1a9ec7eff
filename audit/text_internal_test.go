package audit

import (
	"testing"
	"unicode/utf8"
)

// TestMayHide checks mayHide against the characters dropInvisible
// drops: every one of them, alone and among others, is seen.
func TestMayHide(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) || dropInvisible(r) >= 0 {
			continue
		}
		for _, s := range []string{string(r), "é" + string(r) + "x", "ab" + string(r)} {
			if !mayHide(s) {
				t.Errorf("mayHide(%+q) = false, want true", s)
			}
		}
	}
	for _, s := range []string{"café “quoted” — … → ✅ 文件", "\u2010\u2019\u2070\u20ac\ufe10", "\U000e0200"} {
		if mayHide(s) {
			t.Errorf("mayHide(%+q) = true, want false", s)
		}
	}
}
