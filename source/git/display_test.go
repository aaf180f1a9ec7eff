package git

import (
	"net/url"
	"strings"
	"testing"
)

func TestCleanUser(t *testing.T) {
	tests := []struct{ url, text, want string }{
		{"http://ghp_TOKEN123@127.0.0.1/r.git", "fatal: unable to access 'http://ghp_TOKEN123@127.0.0.1/r.git/': refused", "fatal: unable to access 'http://127.0.0.1/r.git/': refused"},
		{"http://ghp_TOKEN123@127.0.0.1/r.git", "user ghp_TOKEN123 refused", "user [redacted] refused"},
		{"http://ab@127.0.0.1/r.git", "about ab at http://ab@127.0.0.1/", "about ab at http://127.0.0.1/"},
		{"ssh://git@host/r.git", "fatal: could not read from ssh://git@host/r.git", "fatal: could not read from ssh://git@host/r.git"},
		{"ssh://git:pw-secret@host/r.git", "ssh://git:pw-secret@host/r.git and pw-secret", "ssh://git@host/r.git and [redacted]"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := cleanUser(tt.text, u); got != tt.want {
			t.Errorf("cleanUser(%q, %s) = %q, want %q", tt.text, tt.url, got, tt.want)
		}
	}
}

func TestMessagesDropProgress(t *testing.T) {
	stderr := "remote: Enumerating objects: 5, done.\nremote: Counting objects:  20% (1/5)\rremote: Counting objects: 100% (5/5), done.\n" +
		"remote: Total 5 (delta 0), reused 0 (delta 0), pack-reused 0\nReceiving objects:  50% (1/2)\rReceiving objects: 100% (2/2), done.\n" +
		"warning: filtering not recognized by server, ignoring\nfatal: remote error: upload-pack: not our ref 1111\n"
	if got, want := strings.Join(messages(stderr), "; "), "fatal: remote error: upload-pack: not our ref 1111"; got != want {
		t.Errorf("messages(...) = %q, want %q", got, want)
	}
}
