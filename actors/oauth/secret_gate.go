package oauth

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// A login with a configured client secret runs the go-sdk's flow, which
// discovers the authorization server on its own and sends the secret to
// the token endpoint it found. Login's own discovery is checked against
// the pin (pin.go) first, and the secret gate then holds the flow to what
// was checked: a request carrying the secret goes to that token endpoint
// only, even if the server answers the go-sdk's discovery otherwise.

// errSecretElsewhere refuses a request that would carry the client
// secret anywhere but the pinned token endpoint.
var errSecretElsewhere = errors.New("oauth: the client secret would go to another endpoint than the pinned authorization server's token endpoint: refused")

// guardLoginSecret checks the login's discovery against the pin (the
// config's, else the previous record's) and returns c behind the secret
// gate; without a configured secret it returns c. A discovery that
// failed fails the login: where the secret would go is unknown.
func (l *login) guardLoginSecret(c *http.Client) (*http.Client, error) {
	if l.spec.ClientSecret == "" {
		return c, nil
	}
	if l.discoverErr != nil {
		return nil, fmt.Errorf("oauth discovery (needed to know where the client secret goes): %w", l.discoverErr)
	}
	if err := pinOf(l.o.Spec.Name, l.spec, l.prev).admits(l.found.asm.Issuer, l.found.asm.TokenEndpoint); err != nil {
		return nil, err
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	gated := *c
	gated.Transport = &secretGate{secret: l.spec.ClientSecret, tokenURL: l.found.asm.TokenEndpoint, next: next}
	return &gated, nil
}

// secretGate passes a request carrying secret (in a Basic Authorization
// header or the form) only to tokenURL.
type secretGate struct {
	secret, tokenURL string
	next             http.RoundTripper
}

func (g *secretGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if sameEndpoint(req.URL, g.tokenURL) {
		return g.next.RoundTrip(req)
	}
	carries, err := g.carries(req)
	if err != nil || carries {
		closeBody(req)
		if err == nil {
			err = errSecretElsewhere
		}
		return nil, err
	}
	return g.next.RoundTrip(req)
}

// carries reports whether req holds the secret (x/oauth2 sends it in a
// Basic header, query-escaped, or as the form's client_secret); its body
// stays readable.
func (g *secretGate) carries(req *http.Request) (bool, error) {
	if _, pass, ok := req.BasicAuth(); ok {
		if p, err := url.QueryUnescape(pass); pass == g.secret || err == nil && p == g.secret {
			return true, nil
		}
	}
	if req.Body == nil || req.Body == http.NoBody {
		return false, nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return false, fmt.Errorf("read request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	form, _ := url.ParseQuery(string(data))
	return bytes.Contains(data, []byte(g.secret)) || form.Get("client_secret") == g.secret, nil
}

// sameEndpoint reports whether u is endpoint, query aside.
func sameEndpoint(u *url.URL, endpoint string) bool {
	e, err := url.Parse(endpoint)
	return err == nil && u.Scheme == e.Scheme && u.Host == e.Host && u.Path == e.Path
}
