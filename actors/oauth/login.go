package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// LoginOptions are what an interactive login needs.
type LoginOptions struct {
	Spec  messages.ServerSpec
	Store Store
	// Open shows the authorization URL to the person (a browser); it may
	// only print it. The URL carries the login's state and PKCE challenge:
	// Open must never put it in a process's arguments, which every local
	// user can read (/proc/PID/cmdline); hand a browser a private page
	// that redirects to it instead.
	Open func(url string) error
	// Ignored, when set, is told once when the loopback listener ignores
	// a request from a connection another local user owns (a foreign
	// callback, or a browser running as another user). It runs on the
	// listener's goroutine.
	Ignored func(notice string)
	// Client makes every HTTP request of the login; default: the one
	// NewClient makes for the server (the go-sdk's private-address guard
	// on its dials, no redirect to another origin), as the daemon's.
	Client *http.Client
	// Now is the clock the token's expiry counts on.
	Now func() time.Time
}

// Login runs the authorization-code flow for one server through the MCP
// go-sdk's AuthorizationCodeHandler (metadata discovery, client ID
// metadata document, pre-registered client or dynamic registration, PKCE
// S256, the state and issuer checks, the resource parameter), with the
// redirect to a loopback listener that takes only the logging-in user's
// redirect (callback), and stores the token. A client registered
// dynamically is stored (Registration) and reused by the next login to
// the same authorization server; when that server rejects it
// (invalid_client), Login forgets it and runs the flow once more with a
// new registration. Its HTTP requests follow no redirect to another
// origin and reach a non-public address only where the config names it
// (NewClient), unless the caller gives a Client. A streamable HTTP server is connected with the
// handler as its OAuth hook, an HTTP+SSE one with the handler in front of
// its requests (Transport).
func Login(ctx context.Context, o LoginOptions) (*Record, error) {
	if o.Spec.Transport != messages.TransportHTTP && o.Spec.Transport != messages.TransportSSE {
		return nil, fmt.Errorf("server %q is not a remote (http or sse) server: nothing to log in to", o.Spec.Name)
	}
	if o.Client == nil {
		// Not a plain client: a token endpoint answering 307 to another
		// origin would have the code and the PKCE verifier follow it (O3).
		client, t := NewClient(nil, o.Spec.URL, o.Spec.OAuth)
		defer t.CloseIdleConnections()
		o.Client = client
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &login{o: o, spec: o.Spec.OAuth}
	if l.spec == nil {
		l.spec = &messages.OAuthSpec{}
	}
	l.prev, _ = o.Store.Load(o.Spec.Name, o.Spec.URL)
	// Discovery ahead of the flow, for the record (issuer, revocation,
	// the resource), for the stored client registration, and for a
	// 2025-03-26 server whose metadata names an issuer with a path, which
	// the go-sdk is shown the current way. Its failure is the go-sdk's to
	// report.
	// Among the authorization servers the metadata lists, the pinned one
	// is chosen, as the daemon chooses it (pin.go).
	l.found, l.discoverErr = discoverPinned(ctx, o.Client, o.Spec.URL, nil, pinOf(o.Spec.Name, l.spec, l.prev))
	var refused *AuthServerRefusedError
	if l.spec.ClientSecret == "" && errors.As(l.discoverErr, &refused) {
		// No secret to hold back: the pin only chooses, and a server that
		// no longer lists it is logged in to afresh.
		l.found, l.discoverErr = discover(ctx, o.Client, o.Spec.URL, nil)
	}
	stored := l.storedRegistration()
	rec, rejected, err := l.attempt(ctx, stored)
	if rejected {
		// The authorization server no longer knows the client stored for
		// it: forget it and register anew, once.
		if err := o.Store.DeleteRegistration(stored.Issuer); err != nil {
			return nil, err
		}
		rec, _, err = l.attempt(ctx, nil)
	}
	return rec, err
}

// login is one Login under way: what it knew before the flow, and the
// client configuration and token the flow ended with.
type login struct {
	o           LoginOptions
	spec        *messages.OAuthSpec
	prev        *Record // the server's record before this login, if any
	found       *discovered
	discoverErr error
	// Of the attempt under way:
	reg   *registrar // nil when no registration can be kept
	asked bool       // the browser was sent to the authorization server
	cfg   *oauth2.Config
	tok   *oauth2.Token
}

// storedRegistration is the client registered with the server's
// authorization server by an earlier login, when this login would
// register one dynamically.
func (l *login) storedRegistration() *Registration {
	if l.spec.ClientID != "" || l.discoverErr != nil || l.found.asm.RegistrationEndpoint == "" {
		return nil
	}
	r, err := l.o.Store.LoadRegistration(l.found.asm.Issuer)
	if err != nil || r == nil || r.Endpoint != l.found.asm.RegistrationEndpoint {
		return nil // one that cannot be used is replaced by the new registration
	}
	return r
}

// attempt runs the flow once, replaying stored as the registration when
// the go-sdk asks for the same one, and stores the token and a new
// registration. rejected says the stored client was replayed and the
// authorization server refused it as unknown.
func (l *login) attempt(ctx context.Context, stored *Registration) (_ *Record, rejected bool, err error) {
	l.cfg, l.tok, l.reg, l.asked = nil, nil, nil, false
	cb, err := listenForCallback(stored.port(), l.o.Ignored)
	if err != nil {
		return nil, false, err
	}
	defer cb.close()
	defer func() {
		// A failure after the token exchange (the server refusing the
		// connection, say) may quote the token: the error never does.
		// One that quotes none keeps its chain (ErrDuplicateCallback).
		if err == nil || l.tok == nil {
			return
		}
		if text := redact.New(l.tok.AccessToken, l.tok.RefreshToken).Redact(err.Error()); text != err.Error() {
			err = errors.New(text)
		}
	}()
	metaClient := l.o.Client
	if l.discoverErr == nil && l.found.legacy {
		if metaClient, err = legacyClient(l.o.Client, l.o.Spec.URL, l.found.asm); err != nil {
			return nil, false, fmt.Errorf("oauth: %w", err)
		}
	}
	if l.discoverErr == nil && l.found.prm != nil && len(l.found.prm.AuthorizationServers) > 1 {
		metaClient = onlyAuthServer(metaClient, l.found.asm.Issuer)
	}
	if metaClient, err = l.guardLoginSecret(metaClient); err != nil { // O2: see secret_gate.go
		return nil, false, err
	}
	if l.discoverErr == nil {
		metaClient = l.keepRegistration(metaClient, stored)
	}
	h, err := auth.NewAuthorizationCodeHandler(l.handlerConfig(cb, metaClient))
	if err != nil {
		return nil, false, fmt.Errorf("oauth: %w", err)
	}
	connErr := l.connect(ctx, h)
	// Closed before the verdict: no redirect arrives after it.
	cb.close()
	if err := cb.aborted(); err != nil {
		return nil, false, fmt.Errorf("log in to %s: %w", l.o.Spec.Name, err)
	}
	var fresh *Registration
	if l.reg != nil {
		rejected, fresh = l.reg.outcome()
	}
	if connErr != nil {
		return nil, rejected, connErr
	}
	if l.tok == nil {
		return nil, false, errors.New("the server accepted the connection without asking for authorization: nothing to store")
	}
	rec := l.record()
	if err := l.o.Store.Save(rec); err != nil {
		return nil, false, err
	}
	if err := l.o.Store.MarkLogin(rec.Server); err != nil {
		return nil, false, err
	}
	if fresh != nil {
		if err := l.o.Store.SaveRegistration(fresh); err != nil {
			return nil, false, fmt.Errorf("the token is stored, but not the client registered for it (the next login registers again): %w", err)
		}
	}
	return rec, false, nil
}

// keepRegistration puts a registrar for the discovered authorization
// server in front of c's requests. A stored client's secret, which the
// replay hands the go-sdk, goes only to the token endpoint this login's
// discovery found (the secret gate): the go-sdk discovers again, and a
// server that answers it otherwise must not receive the secret.
func (l *login) keepRegistration(c *http.Client, stored *Registration) *http.Client {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if secret := stored.secret(); secret != "" {
		next = &secretGate{secret: secret, tokenURL: l.found.asm.TokenEndpoint, next: next}
	}
	l.reg = &registrar{next: next, issuer: l.found.asm.Issuer, endpoint: l.found.asm.RegistrationEndpoint,
		tokenURL: l.found.asm.TokenEndpoint, stored: stored, now: l.o.Now}
	wrapped := *c
	wrapped.Transport = l.reg
	return &wrapped
}

// handlerConfig configures the go-sdk's flow: the redirect to cb, dynamic
// registration unless the config names a client, the scopes asked for
// (the server's, the config's and the previous record's), and a token
// source that keeps the token this login ends with.
func (l *login) handlerConfig(cb *callback, metaClient *http.Client) *auth.AuthorizationCodeHandlerConfig {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: cb.redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{cb.redirect}, ClientName: "mcpvisor", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if l.asked && l.tok == nil {
				// The last round failed (the go-sdk tries again on the next
				// request): one browser trip per attempt is enough.
				return nil, errors.New("the authorization failed; not asking again")
			}
			l.asked = true
			if err := cb.expect(args.URL); err != nil {
				return nil, err
			}
			if err := l.o.Open(args.URL); err != nil {
				return nil, err
			}
			res, err := cb.wait(ctx)
			var refused *AuthorizationError
			if errors.As(err, &refused) && (refused.Code == "invalid_client" || refused.Code == "unauthorized_client") && l.reg != nil {
				l.reg.reject()
			}
			return res, err
		},
		ScopeFilter: func(discovered []string) []string {
			out := union(discovered, l.spec.Scopes)
			if l.prev != nil {
				out = union(out, union(l.prev.Scopes, l.prev.WantScopes))
			}
			return out
		},
		RequestRefreshToken: true,
		Client:              metaClient,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			l.cfg, l.tok = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if l.spec.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: l.spec.ClientID}
		if l.spec.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: l.spec.ClientSecret}
		}
	}
	if l.spec.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: l.spec.ClientMetadataURL}
	}
	return cfg
}

// connect connects to the server with h authorizing it, which runs the
// flow when the server asks for authorization, and closes the session.
func (l *login) connect(ctx context.Context, h *auth.AuthorizationCodeHandler) error {
	u, err := url.Parse(l.o.Spec.URL)
	if err != nil {
		return fmt.Errorf("parse url: %w", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpvisor", Version: "login"}, nil)
	sse := *l.o.Client
	sse.Transport = Transport(h, u.Scheme+"://"+u.Host, l.o.Client.Transport)
	overSSE := &mcp.SSEClientTransport{Endpoint: l.o.Spec.URL, HTTPClient: &sse}
	var cs *mcp.ClientSession
	if l.o.Spec.Transport == messages.TransportSSE {
		cs, err = client.Connect(ctx, overSSE, nil)
	} else {
		cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.o.Spec.URL, HTTPClient: l.o.Client, OAuthHandler: h, MaxRetries: -1}, nil)
		if err != nil && l.tok != nil && ctx.Err() == nil {
			// Authorized, then refused as streamable HTTP: an http server
			// that speaks only HTTP+SSE, as the daemon's transport
			// detection finds; the handler has the token now.
			if sseCS, sseErr := client.Connect(ctx, overSSE, nil); sseErr == nil {
				cs, err = sseCS, nil
			}
		}
	}
	if err != nil {
		return fmt.Errorf("log in to %s: %w", l.o.Spec.Name, err)
	}
	_ = cs.Close()
	return nil
}

// record is the Record of the token the flow ended with.
func (l *login) record() *Record {
	rec := &Record{Server: l.o.Spec.Name, Resource: l.o.Spec.URL, TokenURL: l.cfg.Endpoint.TokenURL,
		ClientID: l.cfg.ClientID, ClientSecret: l.cfg.ClientSecret, AuthStyle: l.cfg.Endpoint.AuthStyle,
		Scopes: l.cfg.Scopes}
	rec.setToken(l.tok, l.o.Now())
	if l.discoverErr == nil {
		rec.Issuer, rec.RevocationURL = l.found.asm.Issuer, l.found.asm.RevocationEndpoint
		if l.found.resource != l.o.Spec.URL {
			rec.BoundTo = l.found.resource
		}
	}
	return rec
}

// Revoke asks the authorization server to revoke r's tokens (RFC 7009)
// where it advertised a revocation endpoint; without one it does nothing.
func Revoke(ctx context.Context, client *http.Client, r *Record) error {
	if r.RevocationURL == "" {
		return nil
	}
	if client == nil {
		client = http.DefaultClient
	}
	for _, tok := range nonEmpty(r.RefreshToken, r.AccessToken) {
		form := url.Values{"token": {tok}, "client_id": {r.ClientID}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.RevocationURL, strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("revoke: %w", err)
		}
		resp.Body.Close()
	}
	return nil
}
