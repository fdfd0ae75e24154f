package oauth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The go-sdk's discovery (oauthex) refuses to connect to private,
// link-local (the cloud metadata endpoint), carrier-grade NAT, multicast
// and unspecified addresses: a server's metadata must not make the client
// reach into the network it runs in. It does so with a dialer of its own,
// and only on an *http.Transport whose DialContext is unset; a client
// that sets one (every clone of http.DefaultTransport does) opts out, and
// mcpvisor's daemon did. NewClient puts the same guard back, on the dial
// of every OAuth request (discovery, token requests: their URLs come from
// metadata too), with two differences: the hosts the config names (the
// server's URL, oauth.issuer, oauth.tokenUrl) are the user's word and are
// dialled as they are, a private server included; and loopback, which the
// go-sdk lets through, is reached for a host named only by metadata when
// the server itself is on loopback. As in the go-sdk, a transport that
// goes through a proxy dials only the proxy, and is left as it is.

// NewClient is the HTTP client for one server's OAuth requests, on a
// clone of base (nil: http.DefaultTransport) that the caller closes the
// idle connections of: the guard above on its dials, and no redirect to
// another origin (a token request's body, with a client secret, would
// follow a 307).
func NewClient(base *http.Transport, serverURL string, spec *messages.OAuthSpec) (*http.Client, *http.Transport) {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	t := base.Clone()
	if !proxied(t) {
		named := []string{serverURL}
		if spec != nil {
			named = append(named, spec.Issuer, spec.TokenURL)
		}
		t.DialContext = guardedDial(hostPorts(named...), loopbackURL(serverURL))
	}
	return sameOriginOnly(&http.Client{Transport: t}), t
}

// guardedDial dials the named host:ports as they are, and every other
// address only when it is public (or loopback, with loopback).
func guardedDial(named map[string]bool, loopback bool) func(ctx context.Context, network, addr string) (net.Conn, error) {
	plain := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	guarded := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				host = address
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("oauth: %q is not an IP address", host)
			}
			if ip = ip.Unmap(); privateOrReserved(ip) || ip.IsLoopback() && !loopback {
				return fmt.Errorf("oauth: %s is not a public address, and only the hosts the config names may be: refused "+
					"(name the authorization server with oauth.issuer or oauth.tokenUrl to allow it)", ip)
			}
			return nil
		}}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if named[addr] {
			return plain.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
}

// cgnat is RFC 6598's carrier-grade NAT range, which netip's IsPrivate
// does not cover.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// privateOrReserved is the go-sdk's list (internal/util): private, link
// local, multicast, unspecified and carrier-grade NAT addresses.
func privateOrReserved(ip netip.Addr) bool {
	return !ip.IsValid() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsMulticast() || ip.IsUnspecified() || cgnat.Contains(ip)
}

// hostPorts is the host:port each URL dials (the scheme's default port
// when it has none).
func hostPorts(urls ...string) map[string]bool {
	out := map[string]bool{}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			continue
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		out[net.JoinHostPort(u.Hostname(), port)] = true
	}
	return out
}

// loopbackURL reports whether a URL's host is loopback: localhost or a
// loopback address.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(u.Hostname())
	return err == nil && ip.Unmap().IsLoopback()
}

// proxied reports whether t sends requests through a proxy, as the
// go-sdk decides it.
func proxied(t *http.Transport) bool {
	if t.Proxy == nil {
		return false
	}
	req, err := http.NewRequest(http.MethodGet, "https://check-proxy-existence.com", nil)
	if err != nil {
		return false
	}
	u, err := t.Proxy(req)
	return err == nil && u != nil
}
