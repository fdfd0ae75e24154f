package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// The 2025-03-26 revision of the MCP authorization spec has no protected
// resource metadata: the authorization server is found at the MCP
// server's origin (its "authorization base URL"), whose RFC 8414 metadata
// is at the root well-known path, and without metadata the endpoints are
// /authorize, /token and /register there. Such a server may name an
// issuer elsewhere on its origin (".../oauth"): the base URL is where the
// metadata is, not what it is called. The go-sdk checks the issuer against
// the origin (RFC 8414 section 3.3) and refuses that document, so for
// this case only, mcpvisor reads the issuer the document names, and lets
// the go-sdk fetch and validate the document against it.

// originWellKnown is the root RFC 8414 metadata path.
const originWellKnown = "/.well-known/oauth-authorization-server"

// originAuthServerMetadata is the authorization server metadata at the
// MCP server's origin, as the 2025-03-26 revision finds it, or nil when
// there is none (the default endpoints then apply). An issuer on another
// origin is refused: the document does not speak for the server.
func originAuthServerMetadata(ctx context.Context, client *http.Client, origin string) (*oauthex.AuthServerMeta, error) {
	metaURL := origin + originWellKnown
	issuer, err := advertisedIssuer(ctx, client, metaURL)
	if errors.Is(err, errCrossOriginRedirect) {
		return nil, fmt.Errorf("the metadata at %s: %w", metaURL, errCrossOriginRedirect) // not the target's URL: the server chose it
	}
	if err != nil || issuer == "" || sameIssuer(issuer, origin) {
		// No document, or one that names the origin: the go-sdk's lookup
		// (RFC 8414, then OpenID configuration) is all there is to do.
		return auth.GetAuthServerMetadata(ctx, origin, client)
	}
	if u, perr := url.Parse(issuer); perr != nil || u.Scheme+"://"+u.Host != origin {
		// Only the issuer's origin is quoted: the document is the
		// server's text, and an error is shown to a person.
		return nil, fmt.Errorf("the metadata at %s names an issuer at %s, not on the server's origin: refused", metaURL, safeOrigin(issuer))
	}
	asm, err := oauthex.GetAuthServerMeta(ctx, metaURL, issuer, client)
	if err != nil {
		return nil, err
	}
	if asm == nil {
		return nil, fmt.Errorf("the metadata at %s went away during discovery", metaURL)
	}
	return asm, nil
}

// advertisedIssuer is the issuer the document at metaURL names; "" when
// there is no such document. A redirect to another origin is refused, as
// the go-sdk's discovery refuses redirects out of the public internet:
// the origin's metadata is the origin's to serve, and following one once
// fetched (and quoted) whatever the target said.
func advertisedIssuer(ctx context.Context, client *http.Client, metaURL string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metaURL, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := sameOriginOnly(client).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return "", nil
	}
	var doc struct {
		Issuer string `json:"issuer"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return "", nil // not metadata: the go-sdk's lookup says why
	}
	return doc.Issuer, nil
}

func sameIssuer(a, b string) bool { return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/") }

// legacyClient is the login's HTTP client for a 2025-03-26 server whose
// origin metadata names an issuer with a path: it presents what discovery
// found the way the current revision lays it out, so that the go-sdk's
// authorization-code flow (registration, PKCE, state and issuer checks,
// token request) runs unchanged. It answers, without a request, the
// protected resource metadata lookups at the server's well-known paths
// (resource: the server's URL; authorization server: the issuer) and the
// issuer's path-inserted metadata (the document discovery validated).
// Every other request goes out through base.
func legacyClient(base *http.Client, serverURL string, asm *oauthex.AuthServerMeta) (*http.Client, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	iss, err := url.Parse(asm.Issuer)
	if err != nil {
		return nil, err
	}
	origin := u.Scheme + "://" + u.Host
	prm, err := json.Marshal(&oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{asm.Issuer}})
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(asm)
	if err != nil {
		return nil, err
	}
	answers := map[string][]byte{
		origin + "/.well-known/oauth-protected-resource":                 prm,
		origin + originWellKnown + "/" + strings.TrimLeft(iss.Path, "/"): meta, // RFC 8414 path insertion
	}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		answers[origin+"/.well-known/oauth-protected-resource"+p] = prm
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c := *base
	c.Transport = &presetTransport{answers: answers, next: next}
	return &c, nil
}

// presetTransport answers GETs of the URLs it holds with their JSON.
type presetTransport struct {
	answers map[string][]byte
	next    http.RoundTripper
}

func (t *presetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, ok := t.answers[req.URL.Scheme+"://"+req.URL.Host+req.URL.Path]
	if !ok || req.Method != http.MethodGet {
		return t.next.RoundTrip(req)
	}
	closeBody(req)
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(strings.NewReader(string(body))),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}

// closeBody closes a request's body, as a RoundTripper must even when it
// does not send it.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// errCrossOriginRedirect refuses a discovery redirect to another origin.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// sameOriginOnly is client refusing redirects to another origin (and,
// after its own CheckRedirect if it has one, more than ten).
func sameOriginOnly(client *http.Client) *http.Client {
	c := *client
	own := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return errCrossOriginRedirect
		}
		if own != nil {
			return own(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}
