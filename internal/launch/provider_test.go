package launch

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/agentadaptor/agentadaptor/driver"
)

// TestCheckBaseURL checks the rule of CheckBaseURL: a loopback base URL
// where nothing listens is refused, naming the variable and the URL;
// one where something listens, another host, or no variable passes.
func TestCheckBaseURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + closed.Addr().String() + "/v1"
	closed.Close()
	tests := []struct {
		name, url string
		refuse    bool
	}{
		{"unset", "", false},
		{"listening", "http://" + l.Addr().String() + "/v1", false},
		{"refused", refused, true},
		{"refused, localhost", strings.Replace(refused, "127.0.0.1", "localhost", 1), true},
		{"another host", "http://192.0.2.1:9/v1", false},
		{"not a URL", "::", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env []string
			if tt.url != "" {
				env = []string{"X_BASE_URL=" + tt.url}
			}
			err := CheckBaseURL(t.Context(), "agent", env, "X_BASE_URL")
			if !tt.refuse {
				if err != nil {
					t.Errorf("CheckBaseURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			want := "agent: agent is not set up to reach a model: X_BASE_URL is " + tt.url + ", and a connection to it is refused"
			if !errors.Is(err, driver.ErrProviderSetup) || err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("CheckBaseURL(%q) = %v, want %q...", tt.url, err, want)
			}
		})
	}
}
