package launch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/agentadaptor/agentadaptor/driver"
	"github.com/agentadaptor/agentadaptor/internal/process"
)

// dialTimeout bounds the connection CheckBaseURL makes.
const dialTimeout = 2 * time.Second

// CheckBaseURL checks, before the start, the model API's base URL that
// the variable of env names (ANTHROPIC_BASE_URL): when it names a
// loopback host (localhost, 127.0.0.0/8, ::1) and a connection to it is
// refused, nothing listens there, and the agent would retry for minutes
// reporting failed calls without a cause; the error wraps
// driver.ErrProviderSetup and names the variable, the URL and what to do.
// Other hosts are not contacted (the check costs no lookup and sends
// nothing off the machine), and any other outcome passes: the agent
// reports it. A refusal is known by ECONNREFUSED, so on Windows, whose
// sockets report another error, the check passes.
func CheckBaseURL(ctx context.Context, name string, env []string, variable string) error {
	return CheckURL(ctx, name, variable, process.Getenv(env, variable))
}

// CheckURL is [CheckBaseURL] for a base URL raw set elsewhere: where
// names the setting ("base_url of [model_providers.x] in ..."). An empty
// raw passes.
func CheckURL(ctx context.Context, name, where, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	if !loopback(host) {
		return nil
	}
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
	if err == nil {
		conn.Close()
		return nil
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	return fmt.Errorf("%s: %w: %s is %s, and a connection to it is refused (nothing listens there); start the model API there, or set %s to where it listens",
		name, driver.ErrProviderSetup, where, raw, where)
}

// loopback reports whether host names this machine without a lookup.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
