// Package loopback says whether a registry host is on this machine: the
// one decision that package source/oci makes to speak plain HTTP to it,
// and that package source makes to take port 80, not 443, as the default
// of its canonical location. Both ask here, so they cannot disagree.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a name or address, with an optional port,
// an IPv6 address in brackets) is the name localhost, in any case, or a
// loopback address.
func Host(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
