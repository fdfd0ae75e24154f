package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// CheckExposure refuses an API that anyone on the network could use: a
// listen address that is not loopback needs a token. An empty host
// (":7767") listens on every interface; host names other than localhost
// are not resolved and count as non-loopback.
func CheckExposure(listen, token string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (use host:port, e.g. 127.0.0.1:7767)", listen, err)
	}
	if IsLoopbackHost(host) || token != "" {
		return nil
	}
	return fmt.Errorf("refusing to serve the HTTP API on %s without a token: anyone who can reach it could call every tool; "+
		"set --token-file or MCPVISOR_TOKEN, or listen on 127.0.0.1", listen)
}

// IsLoopbackHost reports whether host (no port) is localhost or a loopback
// IP address.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// guard is the authentication in front of every route except /healthz.
type guard struct {
	// tokenSum is the SHA-256 of the token, nil without one. Comparing
	// fixed-length digests in constant time leaks neither the token nor
	// its length.
	tokenSum []byte
}

func newGuard(token string) guard {
	if token == "" {
		return guard{}
	}
	sum := sha256.Sum256([]byte(token))
	return guard{tokenSum: sum[:]}
}

// wrap lets a request through if it carries the token, or, without a
// token, if it names a loopback Host (a page on another site that
// rebinds its DNS name to 127.0.0.1 still sends its own name).
func (g guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.tokenSum == nil {
			host := r.Host
			if h, _, err := net.SplitHostPort(r.Host); err == nil {
				host = h
			}
			if !IsLoopbackHost(host) {
				writeError(w, http.StatusForbidden, fmt.Sprintf("host %q not allowed: without a token the API answers only requests for localhost or a loopback address", r.Host))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if !g.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvisor"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer TOKEN with the daemon's token (--token-file or MCPVISOR_TOKEN)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (g guard) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], g.tokenSum) == 1
}
