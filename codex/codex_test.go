package codex

import (
	"os"
	"path/filepath"
	"testing"
)

func TestUserHome(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		home string
		env  []string
		want string
	}{
		{home: filepath.Join(dir, "configured"), env: []string{"CODEX_HOME=" + filepath.Join(dir, "env")}, want: filepath.Join(dir, "configured")},
		{env: []string{"CODEX_HOME=" + filepath.Join(dir, "env"), "HOME=" + dir}, want: filepath.Join(dir, "env")},
		{env: []string{"HOME=" + dir}, want: filepath.Join(dir, ".codex")},
	} {
		d := &codexDriver{c: Config{Home: tc.home}}
		if got, err := d.userHome(tc.env); err != nil || got != tc.want {
			t.Errorf("userHome with Home %q and env %q = %q, %v; want %q", tc.home, tc.env, got, err, tc.want)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		d := &codexDriver{}
		if got, err := d.userHome(nil); err != nil || got != filepath.Join(home, ".codex") {
			t.Errorf("userHome without HOME = %q, %v; want ~/.codex", got, err)
		}
	}
}

func TestIsUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0f3c2a1e-9b7d-4c1a-8e2f-1234567890AB": true,
		"0f3c2a1e-9b7d-4c1a-8e2f-1234567890ag": false,
		"0f3c2a1e99b7d-4c1a-8e2f-1234567890ab": false,
		"0f3c2a1e-9b7d-4c1a-8e2f":              false,
	} {
		if got := isUUID(s); got != want {
			t.Errorf("isUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
