package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
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
	// only print it.
	Open func(url string) error
	// Client makes every HTTP request of the login; default: a new one.
	Client *http.Client
	// Now is the clock the token's expiry counts on.
	Now func() time.Time
}

// Login runs the authorization-code flow for one server through the MCP
// go-sdk's AuthorizationCodeHandler (metadata discovery, client ID
// metadata document, pre-registered client or dynamic registration, PKCE
// S256, the state and issuer checks, the resource parameter), with the
// redirect to a loopback listener on a free port, and stores the token.
// A streamable HTTP server is connected with the handler as its OAuth
// hook, an HTTP+SSE one with the handler in front of its requests
// (Transport).
func Login(ctx context.Context, o LoginOptions) (_ *Record, err error) {
	if o.Spec.Transport != messages.TransportHTTP && o.Spec.Transport != messages.TransportSSE {
		return nil, fmt.Errorf("server %q is not a remote (http or sse) server: nothing to log in to", o.Spec.Name)
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cb, err := listenForCallback()
	if err != nil {
		return nil, err
	}
	defer cb.close()
	l := &login{o: o, spec: o.Spec.OAuth}
	if l.spec == nil {
		l.spec = &messages.OAuthSpec{}
	}
	l.prev, _ = o.Store.Load(o.Spec.Name, o.Spec.URL)
	defer func() {
		// A failure after the token exchange (the server refusing the
		// connection, say) may quote the token: the error never does.
		if err != nil && l.tok != nil {
			err = errors.New(redact.New(l.tok.AccessToken, l.tok.RefreshToken).Redact(err.Error()))
		}
	}()
	// Discovery ahead of the flow, for the record (issuer, revocation,
	// the resource) and for a 2025-03-26 server whose metadata names an
	// issuer with a path, which the go-sdk is shown the current way.
	// Its failure is the go-sdk's to report.
	metaClient := o.Client
	if l.found, l.discoverErr = discover(ctx, o.Client, o.Spec.URL, nil); l.discoverErr == nil && l.found.legacy {
		if metaClient, err = legacyClient(o.Client, o.Spec.URL, l.found.asm); err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
	}
	if metaClient, err = l.guardLoginSecret(metaClient); err != nil { // O2: see secret_gate.go
		return nil, err
	}
	h, err := auth.NewAuthorizationCodeHandler(l.handlerConfig(cb, metaClient))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	if err := l.connect(ctx, h); err != nil {
		return nil, err
	}
	if l.tok == nil {
		return nil, errors.New("the server accepted the connection without asking for authorization: nothing to store")
	}
	rec := l.record()
	if err := o.Store.Save(rec); err != nil {
		return nil, err
	}
	if err := o.Store.MarkLogin(rec.Server); err != nil {
		return nil, err
	}
	return rec, nil
}

// login is one Login under way: what it knew before the flow, and the
// client configuration and token the flow ended with.
type login struct {
	o           LoginOptions
	spec        *messages.OAuthSpec
	prev        *Record // the server's record before this login, if any
	found       *discovered
	discoverErr error
	cfg         *oauth2.Config
	tok         *oauth2.Token
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
			if err := l.o.Open(args.URL); err != nil {
				return nil, err
			}
			select {
			case r := <-cb.results:
				return r, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
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

// callback is the loopback listener the authorization server redirects
// the browser to.
type callback struct {
	redirect string
	results  chan *auth.AuthorizationResult
	close    func()
}

// listenForCallback listens on a free loopback port and serves the
// redirect (callbackHandler) until close, which waits for the server.
func listenForCallback() (*callback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback listener: %w", err)
	}
	cb := &callback{redirect: "http://" + ln.Addr().String() + "/callback", results: make(chan *auth.AuthorizationResult, 1)}
	srv := &http.Server{Handler: callbackHandler(cb.results), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }()
	cb.close = func() { _ = srv.Close(); <-served }
	return cb, nil
}

// callbackHandler takes the authorization server's redirect: the code,
// state and issuer go to the flow, which checks them.
func callbackHandler(results chan<- *auth.AuthorizationResult) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "authorization failed: "+html.EscapeString(e), http.StatusBadRequest)
			return
		}
		select {
		case results <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default: // a second redirect: the first one is being used
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<!doctype html><p>mcpvisor is logged in. You can close this window.</p>")
	})
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
