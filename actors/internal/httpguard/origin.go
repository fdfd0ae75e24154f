package httpguard

import (
	"fmt"
	"net/http"
)

// Origins rejects requests that a web page on another origin made: a
// browser names the page's origin in Origin and says how the page relates
// to the server in Sec-Fetch-Site. A request without either (curl, the
// CLI, MCP SDK clients) passes; so does one whose Origin is the server's
// own (same scheme-less host:port as the Host it asked for) or a trusted
// one.
//
// It is http.CrossOriginProtection applied to every method:
// CrossOriginProtection lets GET, HEAD and OPTIONS through unchecked, but
// here a GET opens an event stream (the API's /api/v1/events, the
// gateway's SSE), so no method is exempt.
type Origins struct {
	cop *http.CrossOriginProtection
}

// NewOrigins returns the check with trusted added to the origins let
// through. Each is "scheme://host[:port]", as browsers send it.
func NewOrigins(trusted []string) (*Origins, error) {
	cop := http.NewCrossOriginProtection()
	for _, o := range trusted {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("--allow-origin: %w (want scheme://host[:port], e.g. http://localhost:3000)", err)
		}
	}
	return &Origins{cop: cop}, nil
}

// Check returns an error saying why r is refused, or nil.
func (o *Origins) Check(r *http.Request) error {
	probe := r.WithContext(r.Context()) // shallow: only the method differs
	probe.Method = http.MethodPost
	if err := o.cop.Check(probe); err != nil {
		origin := r.Header.Get("Origin")
		if origin == "" {
			origin = "(none)"
		}
		return fmt.Errorf("cross-origin request refused (Origin %s, Sec-Fetch-Site %q): web pages may not use this server; "+
			"trust an origin with --allow-origin", origin, r.Header.Get("Sec-Fetch-Site"))
	}
	return nil
}
