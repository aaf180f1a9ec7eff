package redact

import "testing"

// TestRedact covers every case of URL's doc: what the lock file
// records and messages show of a source's URL.
func TestRedact(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"user and password", "https://user:secret@example.com/kit.tgz", "https://example.com/kit.tgz"},
		{"token as user", "https://ghp_TOKEN@example.com/kit.tgz", "https://example.com/kit.tgz"},
		{"http with a port", "http://user:secret@127.0.0.1:8080/skills.git", "http://127.0.0.1:8080/skills.git"},
		{"git+https token", "git+https://ghp_TOKEN@git.example.com/skills.git#ref=main", "git+https://git.example.com/skills.git#ref=main"},
		{"git+http token", "git+http://ghp_TOKEN@127.0.0.1:8080/skills.git", "git+http://127.0.0.1:8080/skills.git"},
		{"ssh user", "ssh://git@git.example.com/team/skills.git", "ssh://git@git.example.com/team/skills.git"},
		{"ssh user and password", "ssh://git:secret@git.example.com:2222/skills.git", "ssh://git@git.example.com:2222/skills.git"},
		{"git+ssh user", "git+ssh://git@github.com/o/skills.git#ref=v1&path=skills/a", "git+ssh://git@github.com/o/skills.git#ref=v1&path=skills/a"},
		{"git+ssh user and password", "git+ssh://git:secret@gitlab.example.com:2222/o/skills.git", "git+ssh://git@gitlab.example.com:2222/o/skills.git"},
		{"git+ssh password alone", "git+ssh://:secret@gitlab.example.com/o/skills.git", "git+ssh://gitlab.example.com/o/skills.git"},
		{"git+ssh without user", "git+ssh://gitlab.example.com/o/skills.git", "git+ssh://gitlab.example.com/o/skills.git"},
		{"token in the query is kept", "https://example.com/kit.tgz?token=abc", "https://example.com/kit.tgz?token=abc"},
		{"user and query", "https://me:pw@example.com/kit.tgz?x=1", "https://example.com/kit.tgz?x=1"},
		{"no user, not rewritten", "https://example.com/a%2fb/kit.tgz", "https://example.com/a%2fb/kit.tgz"},
		{"file URL", "file:///srv/skills.git", "file:///srv/skills.git"},
		{"unparsable with a password", "https://user:pa/ss@host/x", "https://host/x"},
		{"unparsable with a token", "https://ghp_TOKEN@host/%zz", "https://host/%zz"},
		{"unparsable without user", "https://host/%zz", "https://host/%zz"},
		{"oci", "oci://ghcr.io/o/skill:1", "oci://ghcr.io/o/skill:1"},
		{"path", "./skills/review", "./skills/review"},
		{"bare github", "acme/tools@v1", "acme/tools@v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := URL(tt.in); got != tt.want {
				t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
