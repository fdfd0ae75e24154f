package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// discovered is what metadata discovery found for a server.
type discovered struct {
	resource string
	prm      *oauthex.ProtectedResourceMetadata
	asm      *oauthex.AuthServerMeta
	// legacy: no protected resource metadata, and the origin's metadata
	// names an issuer elsewhere on the origin (see legacy.go).
	legacy bool
}

// discover finds the protected resource metadata (RFC 9728: from the
// challenge, then the well-known paths) and the authorization server's
// (RFC 8414 or OpenID configuration), with the 2025-03-26 revision's
// fallbacks: the server's origin as the authorization server, and its
// default endpoints.
func discover(ctx context.Context, client *http.Client, serverURL string, challenges []oauthex.Challenge) (*discovered, error) {
	return discoverPinned(ctx, client, serverURL, challenges, authServerPin{})
}

// discoverPinned is discover choosing, among the authorization servers
// the protected resource metadata names, the pinned one; one that does
// not name it is refused before any request goes to another (pin.go).
func discoverPinned(ctx context.Context, client *http.Client, serverURL string, challenges []oauthex.Challenge, pin authServerPin) (*discovered, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("parse url: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	var candidates []string
	for _, c := range challenges {
		if m := c.Params["resource_metadata"]; m != "" {
			candidates = append(candidates, m)
		}
	}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		candidates = append(candidates, origin+"/.well-known/oauth-protected-resource"+p)
	}
	candidates = append(candidates, origin+"/.well-known/oauth-protected-resource")
	d := &discovered{resource: serverURL}
	for _, m := range candidates {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, m, serverURL, client)
		if err != nil || prm == nil {
			continue
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata at %s names no authorization server", safeOrigin(m))
		}
		d.prm, d.resource = prm, prm.Resource
		break
	}
	issuer := origin
	var asm *oauthex.AuthServerMeta
	if d.prm != nil {
		if issuer, err = pin.choose(d.prm); err != nil {
			return nil, err
		}
		asm, err = auth.GetAuthServerMetadata(ctx, issuer, client)
	} else {
		asm, err = originAuthServerMetadata(ctx, client, origin)
		d.legacy = asm != nil && !sameIssuer(asm.Issuer, origin)
	}
	if err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil {
		asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register"}
	}
	d.asm = asm
	return d, nil
}

// challengeScopes are the scopes a Bearer challenge asks for.
func challengeScopes(cs []oauthex.Challenge) []string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

// challengeError is a Bearer challenge's error code.
func challengeError(cs []oauthex.Challenge) string {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] != "" {
			return c.Params["error"]
		}
	}
	return ""
}

// union is a's scopes followed by those of b it lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		found := false
		for _, o := range out {
			found = found || o == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}
