package oauth

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The authorization server a configured client secret or private key may
// authenticate to is pinned: the one the config names (oauth.issuer,
// oauth.tokenUrl), or else the one recorded with the server's token (the
// first one seen: a Record's Issuer and TokenURL). Protected resource
// metadata is the resource server's word, and a hostile or compromised
// server once named an authorization server of its own, which then
// received the client secret (O2). A server naming another one is
// refused before anything is sent, and the refusal is terminal: the
// session waits in needs-auth rather than asking again on every retry.

// authServerPin is where secrets may go; the zero pin admits any (the
// first one seen, which is then recorded).
type authServerPin struct {
	issuer   string // the issuer identifier, or ""
	tokenURL string // the token endpoint, or ""
	// source says where the pin comes from, for the refusal's text.
	source string
	// fix is what to do when the server really moved.
	fix string
}

// pin is the authorization server the handler's secrets may go to: the
// config's, else the one recorded with the token. Called with mu held.
func (h *Handler) pin() authServerPin { return pinOf(h.cfg.Server, h.cfg.Spec, h.rec) }

// pinOf is the pin of server with its oauth spec and stored record (each
// may be nil).
func pinOf(server string, spec *messages.OAuthSpec, rec *Record) authServerPin {
	if spec != nil && (spec.Issuer != "" || spec.TokenURL != "") {
		return authServerPin{issuer: spec.Issuer, tokenURL: spec.TokenURL, source: "the config's oauth.issuer or oauth.tokenUrl",
			fix: "if the server really moved, change oauth.issuer or oauth.tokenUrl in the config"}
	}
	if rec != nil && (rec.Issuer != "" || rec.TokenURL != "") {
		p := authServerPin{issuer: rec.Issuer, source: "the token store (the first one this server named)",
			fix: fmt.Sprintf("if the server really moved, run `mcpvisor auth logout %s` or name it with oauth.issuer in the config", server)}
		if p.issuer == "" {
			p.tokenURL = rec.TokenURL
		}
		return p
	}
	return authServerPin{}
}

// configPin is the config's pin alone: what a stored record's
// authorization server must match. Called with mu held.
func (h *Handler) configPin() authServerPin {
	if p := h.pin(); h.cfg.Spec != nil && (h.cfg.Spec.Issuer != "" || h.cfg.Spec.TokenURL != "") {
		return p
	}
	return authServerPin{}
}

func (p authServerPin) set() bool { return p.issuer != "" || p.tokenURL != "" }

// admits reports whether a secret may go to the authorization server
// with this issuer and token endpoint; the error says who is refused, in
// favour of whom, and the fix.
func (p authServerPin) admits(issuer, tokenURL string) error {
	if p.issuer != "" && !sameIssuer(issuer, p.issuer) || p.tokenURL != "" && tokenURL != p.tokenURL {
		named := issuer
		if named == "" {
			named = tokenURL
		}
		return p.refuse(named)
	}
	return nil
}

// choose is the authorization server to use among those protected
// resource metadata names: the pinned issuer when listed, else the first
// (whose token endpoint admits then checks). A pinned issuer the
// metadata does not list is refused before any request goes to another.
func (p authServerPin) choose(prm *oauthex.ProtectedResourceMetadata) (string, error) {
	if p.issuer == "" {
		return prm.AuthorizationServers[0], nil
	}
	if i := slices.IndexFunc(prm.AuthorizationServers, func(s string) bool { return sameIssuer(s, p.issuer) }); i >= 0 {
		return prm.AuthorizationServers[i], nil
	}
	return "", p.refuse(prm.AuthorizationServers[0])
}

func (p authServerPin) refuse(named string) error {
	want := p.issuer
	if want == "" {
		want = p.tokenURL
	}
	return &AuthServerRefusedError{Named: safeOrigin(named), Pinned: want, Source: p.source, Fix: p.fix}
}

// AuthServerRefusedError says the server named an authorization server
// other than the one its client secret or private key may go to; nothing
// was sent to it.
type AuthServerRefusedError struct {
	// Named is the origin of the authorization server the server named
	// (only its origin: the rest is the server's text).
	Named string
	// Pinned is the one the secret may go to, and Source where that
	// comes from.
	Pinned, Source, Fix string
}

func (e *AuthServerRefusedError) Error() string {
	return fmt.Sprintf("the server names authorization server %s, but %s holds %s: refused, the client's credentials were not sent; %s",
		e.Named, e.Source, e.Pinned, e.Fix)
}

// safeOrigin is the scheme and host of a URL from a server's metadata,
// quoted, or a placeholder: the rest of such text is never repeated.
func safeOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || len(u.Host) > 255 || (u.Scheme != "https" && u.Scheme != "http") {
		return "(not an http(s) URL)"
	}
	return fmt.Sprintf("%q", u.Scheme+"://"+u.Host)
}
