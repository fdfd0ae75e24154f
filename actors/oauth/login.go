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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("loopback listener: %w", err)
	}
	redirect := "http://" + ln.Addr().String() + "/callback"
	results := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{Handler: callbackHandler(results), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close(); <-served }()

	spec := o.Spec.OAuth
	if spec == nil {
		spec = &messages.OAuthSpec{}
	}
	prev, _ := o.Store.Load(o.Spec.Name, o.Spec.URL)
	// Discovery ahead of the flow, for the record (issuer, revocation,
	// the resource) and for a 2025-03-26 server whose metadata names an
	// issuer with a path, which the go-sdk is shown the current way.
	// Its failure is the go-sdk's to report.
	metaClient := o.Client
	d, derr := discover(ctx, o.Client, o.Spec.URL, nil)
	if derr == nil && d.legacy {
		if metaClient, err = legacyClient(o.Client, o.Spec.URL, d.asm); err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
	}
	var captured struct {
		cfg *oauth2.Config
		tok *oauth2.Token
	}
	defer func() {
		// A failure after the token exchange (the server refusing the
		// connection, say) may quote the token: the error never does.
		if err != nil && captured.tok != nil {
			err = errors.New(redact.New(captured.tok.AccessToken, captured.tok.RefreshToken).Redact(err.Error()))
		}
	}()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "mcpvisor", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}},
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := o.Open(args.URL); err != nil {
				return nil, err
			}
			select {
			case r := <-results:
				return r, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		ScopeFilter: func(discovered []string) []string {
			out := union(discovered, spec.Scopes)
			if prev != nil {
				out = union(out, union(prev.Scopes, prev.WantScopes))
			}
			return out
		},
		RequestRefreshToken: true,
		Client:              metaClient,
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			captured.cfg, captured.tok = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	if spec.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: spec.ClientID}
		if spec.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: spec.ClientSecret}
		}
	}
	if spec.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: spec.ClientMetadataURL}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpvisor", Version: "login"}, nil)
	u, err := url.Parse(o.Spec.URL)
	if err != nil {
		return nil, fmt.Errorf("parse url: %w", err)
	}
	sse := *o.Client
	sse.Transport = Transport(h, u.Scheme+"://"+u.Host, o.Client.Transport)
	overSSE := &mcp.SSEClientTransport{Endpoint: o.Spec.URL, HTTPClient: &sse}
	var cs *mcp.ClientSession
	if o.Spec.Transport == messages.TransportSSE {
		cs, err = client.Connect(ctx, overSSE, nil)
	} else {
		cs, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: o.Spec.URL, HTTPClient: o.Client, OAuthHandler: h, MaxRetries: -1}, nil)
		if err != nil && captured.tok != nil && ctx.Err() == nil {
			// Authorized, then refused as streamable HTTP: an http server
			// that speaks only HTTP+SSE, as the daemon's transport
			// detection finds; the handler has the token now.
			if sseCS, sseErr := client.Connect(ctx, overSSE, nil); sseErr == nil {
				cs, err = sseCS, nil
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("log in to %s: %w", o.Spec.Name, err)
	}
	_ = cs.Close()
	if captured.tok == nil {
		return nil, errors.New("the server accepted the connection without asking for authorization: nothing to store")
	}
	rec := &Record{Server: o.Spec.Name, Resource: o.Spec.URL, TokenURL: captured.cfg.Endpoint.TokenURL,
		ClientID: captured.cfg.ClientID, ClientSecret: captured.cfg.ClientSecret, AuthStyle: captured.cfg.Endpoint.AuthStyle,
		Scopes: captured.cfg.Scopes}
	rec.setToken(captured.tok, o.Now())
	if derr == nil {
		rec.Issuer, rec.RevocationURL = d.asm.Issuer, d.asm.RevocationEndpoint
		if d.resource != o.Spec.URL {
			rec.BoundTo = d.resource
		}
	}
	if err := o.Store.Save(rec); err != nil {
		return nil, err
	}
	if err := o.Store.MarkLogin(rec.Server); err != nil {
		return nil, err
	}
	return rec, nil
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
