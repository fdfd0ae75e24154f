package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
)

// MinTokenBytes is the shortest token New accepts, on loopback too: a
// random 32-byte token is what `mcpvisor run` creates.
const MinTokenBytes = httpguard.MinTokenBytes

// GuessBurst wrong tokens are compared at once; after them, one every
// GuessEvery for the whole server. Requests that come in between are
// answered 429 with Retry-After, their token not compared (the right one
// neither: it cannot be told from a guess without comparing it). The
// right token spends nothing. Under Serve the server's own user is not
// throttled at all.
const (
	GuessBurst = httpguard.DefaultGuessBurst
	GuessEvery = httpguard.DefaultGuessEvery
)

// CheckToken refuses a token shorter than MinTokenBytes, with the message
// New, CheckExposure and the gateway give; "" (no token) passes.
func CheckToken(token string) error { return httpguard.CheckToken(token) }

// MinExposedTokenBytes is MinTokenBytes, the name from when only an API
// beyond loopback needed a long token.
//
// Deprecated: use MinTokenBytes.
const MinExposedTokenBytes = MinTokenBytes

// CheckExposure refuses an API that anyone on the network could use: a
// listen address that is not loopback needs a token, and no address takes
// one shorter than MinTokenBytes (on loopback every local user could
// guess it). An empty host (":7767") listens on every
// interface; host names other than localhost are not resolved and count
// as non-loopback.
func CheckExposure(listen, token string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (use host:port, e.g. 127.0.0.1:7767)", listen, err)
	}
	if !IsLoopbackHost(host) && token == "" {
		return fmt.Errorf("refusing to serve the HTTP API on %s without a token: anyone who can reach it could call every tool; "+
			"set --token-file or MCPVISOR_TOKEN, or listen on 127.0.0.1", listen)
	}
	if err := CheckToken(token); err != nil {
		return fmt.Errorf("refusing to serve the HTTP API on %s: %w", listen, err)
	}
	return nil
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

// CheckOrigins says whether New would accept origins as AllowOrigins.
func CheckOrigins(origins []string) error {
	_, err := httpguard.NewOrigins(origins)
	return err
}

// guard is what stands in front of every route: the Origin check on all
// of them, then the token (or, with NoAuth, the loopback Host) on every
// route but /healthz.
type guard struct {
	origins *httpguard.Origins
	token   httpguard.Token
	bearer  *httpguard.Throttle // token, with wrong guesses slowed
	noAuth  bool
}

// checkOrigin refuses requests made by web pages of other origins, on
// every route.
func (g guard) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := g.origins.Check(r); err != nil {
			writeError(w, http.StatusForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

// wrap lets a request through if it carries the token. With NoAuth it
// lets it through if it names a loopback Host instead (a page on another
// site that rebinds its DNS name to 127.0.0.1 still sends its own name).
// Without a token and without NoAuth nothing gets through.
func (g guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g.noAuth {
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
		verdict, wait := g.bearer.Check(r)
		if verdict == httpguard.Throttled {
			httpguard.SetRetryAfter(w.Header(), wait)
			writeError(w, http.StatusTooManyRequests, httpguard.ThrottledMessage)
			return
		}
		if verdict != httpguard.Authorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpvisor"`)
			msg := "missing or wrong bearer token: send Authorization: Bearer TOKEN with the daemon's token (its token file, by default ~/.local/state/mcpvisor/token)"
			if !g.token.Set() {
				msg = "this API was started without a token, so it serves nobody: give it one (Options.Token), or set Options.NoAuth behind your own authentication"
			}
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}
