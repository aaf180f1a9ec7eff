package install

import (
	"encoding/hex"
	"strings"
	"testing"
)

// The expected buffers are written out from the documented layout of
// REPARSE_DATA_BUFFER (see mountPointReparseBuffer), not produced by the
// code under test.
func TestMountPointReparseBuffer(t *testing.T) {
	tests := []struct {
		name   string
		target string
		want   string // hex, spaces for reading
	}{
		{
			name:   "short path",
			target: `C:\a`,
			want: "030000a0 2400 0000" + // tag, data length 36, reserved
				" 0000 1000 1200 0800" + // substitute at 0, 16 bytes; print at 18, 8 bytes
				" 5c003f003f005c00 43003a005c006100 0000" + // \??\C:\a NUL
				" 43003a005c006100 0000", // C:\a NUL
		},
		{
			name:   "shell metacharacters, long-path prefix",
			target: `\\?\D:\R&D`,
			want: "030000a0 2c00 0000" + // data length 44
				" 0000 1400 1600 0c00" + // substitute 20 bytes, print at 22, 12 bytes
				" 5c003f003f005c00 44003a005c00 52002600 4400 0000" + // \??\D:\R&D NUL
				" 44003a005c00 52002600 4400 0000", // D:\R&D NUL
		},
		{
			name:   "forward slashes, a character outside the BMP",
			target: "C:/\U0001F600",
			want: "030000a0 2800 0000" + // data length 40
				" 0000 1200 1400 0a00" + // substitute 18 bytes, print at 20, 10 bytes
				" 5c003f003f005c00 43003a005c00 3dd800de 0000" + // \??\C:\ U+1F600 (a surrogate pair) NUL
				" 43003a005c00 3dd800de 0000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mountPointReparseBuffer(tt.target)
			if err != nil {
				t.Fatalf("mountPointReparseBuffer(%q) = %v", tt.target, err)
			}
			if want := strings.ReplaceAll(tt.want, " ", ""); hex.EncodeToString(got) != want {
				t.Errorf("mountPointReparseBuffer(%q) = %x, want %s", tt.target, got, want)
			}
		})
	}
}

func TestMountPointReparseBufferRefuses(t *testing.T) {
	// The buffer holds at most 16 KiB: 28 bytes plus 4 per UTF-16 unit of
	// the print name, so names of up to 4089 units fit.
	longest := `C:\` + strings.Repeat("a", 4089-3)
	if b, err := mountPointReparseBuffer(longest); err != nil || len(b) != 16384 {
		t.Errorf("mountPointReparseBuffer(<%d characters>) = %d bytes, %v; want 16384 bytes", len(longest), len(b), err)
	}
	for _, target := range []string{
		"",
		`a\b`,
		`C:a`,
		`\a`,
		`\\server\share\a`,
		`\\?\UNC\server\share\a`,
		"C:\\a\x00b",
		"C:\\\xff",
		longest + "a",
	} {
		if b, err := mountPointReparseBuffer(target); err == nil {
			t.Errorf("mountPointReparseBuffer(%.40q) = %x, want error", target, b)
		}
	}
}
