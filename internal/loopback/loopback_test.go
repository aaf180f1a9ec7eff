package loopback

import "testing"

// TestHost checks the names and addresses that are, and are not, on
// this machine.
func TestHost(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost:5000", true},
		{"127.0.0.1", true},
		{"127.8.9.10:443", true},
		{"[::1]:5000", true},
		{"::1", true},
		{"ghcr.io", false},
		{"ghcr.io:443", false},
		{"10.0.0.1", false},
		{"10.0.0.1:5000", false},
		{"192.168.1.1", false},
		{"[::2]:5000", false},
		{"localhost.example.org", false},
		{"localhost.evil.example", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := Host(tt.host); got != tt.want {
			t.Errorf("Host(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
