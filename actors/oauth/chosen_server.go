package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
)

// The go-sdk's authorization-code flow uses the first authorization
// server that protected resource metadata lists. When the metadata lists
// several, Login chooses the pinned one (discoverPinned), and the flow
// must use the same: onlyAuthServer shows the go-sdk the metadata with
// that one alone listed. Metadata that does not list it is left as it
// is; the secret gate and the pin check refuse what would follow.

// onlyAuthServer is c with every protected resource metadata answer
// listing, of its authorization servers, only issuer when it lists it.
func onlyAuthServer(c *http.Client, issuer string) *http.Client {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out := *c
	out.Transport = &authServerFilter{issuer: issuer, next: next}
	return &out
}

// authServerFilter is onlyAuthServer's transport.
type authServerFilter struct {
	issuer string
	next   http.RoundTripper
}

func (f *authServerFilter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := f.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		!strings.HasPrefix(req.URL.Path, "/.well-known/oauth-protected-resource") {
		return resp, err
	}
	body, err := peek(resp)
	if err != nil {
		return nil, err
	}
	if kept, ok := f.keepIssuer(body); ok {
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(kept)), int64(len(kept))
	}
	return resp, nil
}

// keepIssuer is the metadata document body with authorization_servers
// cut to the issuer, when it lists the issuer among others.
func (f *authServerFilter) keepIssuer(body []byte) ([]byte, bool) {
	var doc map[string]json.RawMessage
	var listed []string
	if json.Unmarshal(body, &doc) != nil || json.Unmarshal(doc["authorization_servers"], &listed) != nil || len(listed) < 2 {
		return nil, false
	}
	i := slices.IndexFunc(listed, func(s string) bool { return sameIssuer(s, f.issuer) })
	if i < 0 {
		return nil, false
	}
	doc["authorization_servers"], _ = json.Marshal([]string{listed[i]})
	out, err := json.Marshal(doc)
	return out, err == nil
}
