package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpvisor/mcpvisor/messages"
)

// RefreshSkew is how long before its expiry an access token is refreshed.
const RefreshSkew = time.Minute

// Config is what a session's Handler needs.
type Config struct {
	Server string
	// URL is the server's endpoint; it is the resource tokens are bound to
	// until protected resource metadata names another.
	URL string
	// Spec is the server's oauth object; nil means the defaults.
	Spec  *messages.OAuthSpec
	Store Store
	Clock quartz.Clock
	// Client makes the requests to the authorization server.
	Client *http.Client
	// Context bounds the refreshes made outside a request (the session's
	// life); nil means none.
	Context context.Context
	// Learn is given the secrets of every token the handler obtains (a
	// refresh, a client-credentials token), before it stores, sends or
	// returns it: the session's redactor then knows them before they can
	// appear in any text. Nil means nobody listens.
	Learn func(secrets ...string)
}

// RefreshTimeout bounds one refresh or client-credentials request made
// for the transport (which gives Token no context), on the clock.
const RefreshTimeout = 30 * time.Second

// Handler is a session's auth.OAuthHandler. It never runs a browser: with
// the authorization-code grant it uses (and refreshes) the token `mcpvisor
// auth login` stored, and when there is none, or it cannot be refreshed,
// it fails the request with a NeedsAuthError. With the client-credentials
// grant it fetches tokens itself. Its methods run on the transport's
// goroutines; a mutex guards its state.
type Handler struct {
	cfg Config

	mu      sync.Mutex
	loaded  bool
	rec     *Record
	failure string // why no usable token is at hand
	stepUps int
	needs   *NeedsAuthError
}

var _ auth.OAuthHandler = (*Handler)(nil)

// NewHandler returns the handler of one session.
func NewHandler(cfg Config) *Handler {
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	return &Handler{cfg: cfg}
}

// NeedsAuth is the reason the session needs a person, once a request
// failed for it; nil otherwise.
func (h *Handler) NeedsAuth() *NeedsAuthError {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.needs
}

// Secrets are the stored token's values, for the session's redactor.
func (h *Handler) Secrets() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.load()
	if h.rec == nil {
		return nil
	}
	return h.rec.Secrets()
}

func (h *Handler) clientCredentials() bool {
	return h.cfg.Spec != nil && h.cfg.Spec.Grant == messages.GrantClientCredentials
}

// load reads the stored record once.
func (h *Handler) load() {
	if h.loaded {
		return
	}
	h.loaded = true
	rec, err := h.cfg.Store.Load(h.cfg.Server, h.cfg.URL)
	switch {
	case errors.Is(err, ErrNoToken):
		h.failure = "no token stored"
	case err != nil:
		h.failure = err.Error()
	default:
		h.rec = rec
	}
}

// TokenSource is the handler itself.
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) { return h, nil }

// Token returns the access token, refreshing it first when it expires
// within RefreshSkew on the clock. Without a usable token it returns none,
// so that the request goes out bare and its 401 reaches Authorize.
func (h *Handler) Token() (*oauth2.Token, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.load()
	if h.rec == nil || h.rec.AccessToken == "" {
		return nil, nil
	}
	if !h.rec.Expiry.IsZero() && !h.cfg.Clock.Now().Add(RefreshSkew).Before(h.rec.Expiry) {
		parent := h.cfg.Context
		if parent == nil {
			parent = context.Background()
		}
		ctx, cancel := context.WithCancel(parent)
		bound := h.cfg.Clock.AfterFunc(RefreshTimeout, cancel, "oauth", "refresh")
		err := h.renew(ctx)
		bound.Stop()
		cancel()
		if err != nil {
			h.failure = err.Error()
			h.rec.AccessToken = "" // expired or about to: never sent again
			return nil, nil
		}
	}
	return h.rec.token(), nil
}

// renew refreshes the record's token, or for client credentials fetches a
// new one, and stores it. Called with mu held.
func (h *Handler) renew(ctx context.Context) error {
	now := h.cfg.Clock.Now()
	if err := h.configPin().admits(h.rec.Issuer, h.rec.TokenURL); err != nil {
		return fmt.Errorf("the stored token's authorization server is not the configured one: %w", err)
	}
	if h.clientCredentials() {
		asm := &oauthex.AuthServerMeta{Issuer: h.rec.Issuer, TokenEndpoint: h.rec.TokenURL}
		tok, _, err := clientCredentialsToken(ctx, h.cfg.Client, h.cfg.Spec, asm, h.rec.boundTo(), h.rec.Scopes, now)
		if err != nil {
			return fmt.Errorf("client credentials: %s", tokenError(err))
		}
		h.took(h.rec, tok, now)
		return h.cfg.Store.Save(h.rec)
	}
	if h.rec.RefreshToken == "" {
		return errors.New("the token expired and there is no refresh token")
	}
	tok, err := refreshToken(ctx, h.cfg.Client, h.rec)
	if err != nil {
		return fmt.Errorf("refresh failed: %s", tokenError(err))
	}
	h.took(h.rec, tok, now)
	return h.cfg.Store.Save(h.rec)
}

// took puts a token just obtained into rec, after the session's redactor
// learned it. Called with mu held.
func (h *Handler) took(rec *Record, tok *oauth2.Token, now time.Time) {
	if tok.ExpiresIn <= 0 {
		tok.ExpiresIn = rawExpiresIn(tok)
	}
	rec.setToken(tok, now)
	if h.cfg.Learn != nil {
		h.cfg.Learn(rec.Secrets()...)
	}
}

// tokenError is the OAuth error code and description of a failed token
// request, or its error text: never the response body.
func tokenError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return strings.TrimSpace(re.ErrorCode + " " + re.ErrorDescription)
		}
		if re.Response != nil {
			return "the authorization server answered " + re.Response.Status
		}
	}
	return err.Error()
}

// Authorize handles a 401 or 403 answer: a refresh (once per stored
// token), a client-credentials token, or a NeedsAuthError.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body)
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	insufficient := challengeError(challenges) == "insufficient_scope"
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		return nil // not about authorization: the retry answers the caller
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.needs != nil && h.needs.Refused != nil {
		return h.needs // terminal: the server is not asked again, nor is its authorization server
	}
	h.load()
	asked := boundScopes(challengeScopes(challenges))
	if insufficient {
		h.stepUps++
		if h.stepUps > 1 {
			return h.needAuth(fmt.Sprintf("the server still asks for scope %q after a step-up", strings.Join(asked, " ")))
		}
	}
	if h.clientCredentials() {
		return h.fetchClientCredentials(ctx, challenges, asked)
	}
	if insufficient {
		if h.rec != nil {
			// The next login asks for the granted scopes and these: the
			// latest challenge's only, so that they cannot pile up.
			h.rec.WantScopes = asked
			_ = h.cfg.Store.Save(h.rec)
		}
		return h.needAuth(fmt.Sprintf("the server asks for scope %q", strings.Join(asked, " ")))
	}
	if h.rec != nil && h.rec.RefreshToken != "" && h.rec.AccessToken != "" {
		// The server refused a token it should take: refresh once.
		if err := h.renew(ctx); err != nil {
			h.rec.AccessToken = ""
			return h.needAuth(err.Error())
		}
		return nil
	}
	if h.rec != nil && h.failure == "" {
		h.failure = "the server refused the stored token"
	}
	return h.needAuth(h.failure)
}

func (h *Handler) needAuth(reason string) error {
	h.needs = &NeedsAuthError{Server: h.cfg.Server, Reason: reason}
	return h.needs
}

// fetchClientCredentials gets a token with the client-credentials grant,
// discovering the authorization server first. Called with mu held.
// The client's secret or key goes only to the pinned authorization
// server; the first one seen is recorded before it does (pin.go).
func (h *Handler) fetchClientCredentials(ctx context.Context, challenges []oauthex.Challenge, asked []string) error {
	pin := h.pin()
	d, err := discoverPinned(ctx, h.cfg.Client, h.cfg.URL, challenges, pin)
	if err == nil {
		err = pin.admits(d.asm.Issuer, d.asm.TokenEndpoint)
	}
	var refused *AuthServerRefusedError
	if errors.As(err, &refused) {
		h.needs = &NeedsAuthError{Server: h.cfg.Server, Reason: refused.Error(), Refused: refused}
		return h.needs
	}
	if err != nil {
		return fmt.Errorf("oauth discovery: %w", err)
	}
	scopes := boundScopes(h.cfg.Spec.Scopes, asked)
	if len(scopes) == 0 && d.prm != nil {
		scopes = boundScopes(d.prm.ScopesSupported)
	}
	rec := &Record{Server: h.cfg.Server, Resource: h.cfg.URL, BoundTo: d.resource, Issuer: d.asm.Issuer, TokenURL: d.asm.TokenEndpoint,
		RevocationURL: d.asm.RevocationEndpoint, ClientID: h.cfg.Spec.ClientID, Scopes: scopes}
	if !pin.set() {
		if err := h.cfg.Store.Save(rec); err != nil {
			return fmt.Errorf("record the authorization server: %w", err)
		}
		h.rec = rec
	}
	now := h.cfg.Clock.Now()
	tok, style, err := clientCredentialsToken(ctx, h.cfg.Client, h.cfg.Spec, d.asm, d.resource, scopes, now)
	if err != nil {
		return fmt.Errorf("client credentials: %s", tokenError(err))
	}
	rec.AuthStyle = style
	h.took(rec, tok, now)
	h.rec, h.failure = rec, ""
	return h.cfg.Store.Save(rec)
}

// rawExpiresIn is the answer's expires_in, which x/oauth2's
// client-credentials request (and so a refresh, refresh.go) turns into a
// wall-clock expiry only: the expiry counts on the handler's clock.
func rawExpiresIn(tok *oauth2.Token) int64 {
	switch v := tok.Extra("expires_in").(type) {
	case float64:
		return int64(v)
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}
