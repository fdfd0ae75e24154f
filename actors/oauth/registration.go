package oauth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// Registration is a client mcpvisor registered dynamically (RFC 7591)
// with one authorization server, kept so that the next login to that
// server reuses it instead of registering a new client every time.
//
// The go-sdk registers from its own metadata; mcpvisor replays the
// stored answer when the go-sdk sends the very request it sent then
// (registrar). The request holds the loopback redirect URI, so the next
// login listens on the same port (RedirectURI) to send the same request:
// that works with an authorization server that insists on the exact
// registered redirect, not only with one that allows any loopback port
// (RFC 8252 §7.3). When the port is taken, the login listens elsewhere
// and registers anew.
type Registration struct {
	// Issuer is the authorization server the client is registered with.
	Issuer string `json:"issuer"`
	// Endpoint is its registration endpoint.
	Endpoint string `json:"registrationEndpoint"`
	// RedirectURI is the loopback redirect registered.
	RedirectURI string `json:"redirectUri"`
	// Request is the registration request's body, Response the server's
	// answer (client_id, the secret if any, the token endpoint's
	// authentication method, the secret's expiry).
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response"`
}

// port is the loopback port of the registered redirect, or 0.
func (r *Registration) port() int {
	if r == nil {
		return 0
	}
	u, err := url.Parse(r.RedirectURI)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// expired tells whether the client's secret has expired
// (client_secret_expires_at, 0 for never).
func (r *Registration) expired(now time.Time) bool {
	var resp struct {
		ExpiresAt int64 `json:"client_secret_expires_at"`
	}
	if err := json.Unmarshal(r.Response, &resp); err != nil {
		return true
	}
	return resp.ExpiresAt != 0 && !now.Before(time.Unix(resp.ExpiresAt, 0))
}

// secret is the client secret the authorization server issued with the
// registration (client_secret), or "".
func (r *Registration) secret() string {
	if r == nil {
		return ""
	}
	var resp struct {
		Secret string `json:"client_secret"`
	}
	_ = json.Unmarshal(r.Response, &resp)
	return resp.Secret
}

// registrationPath is the file of the client registered with issuer, in
// a directory of its own so that List never takes it for a token.
func (s Store) registrationPath(issuer string) string {
	sum := sha256.Sum256([]byte(issuer))
	return filepath.Join(s.Dir, "clients", hex.EncodeToString(sum[:8])+".json")
}

// LoadRegistration reads the client registered with issuer; nothing
// stored is (nil, nil). A file another user owns, or that others can read or write, is refused.
func (s Store) LoadRegistration(issuer string) (*Registration, error) {
	path := s.registrationPath(issuer)
	f, err := ondisk.OpenChecked(path, ondisk.NotReadable)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var exposed *ondisk.ExposedError
	if errors.As(err, &exposed) {
		return nil, fmt.Errorf("client registration %w, or delete it (the next login registers anew)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("client registration: %w", err)
	}
	defer f.Close()
	var r Registration
	if err := json.NewDecoder(f).Decode(&r); err != nil || r.Issuer != issuer {
		return nil, fmt.Errorf("client registration %s is damaged: delete it (the next login registers anew)", path)
	}
	return &r, nil
}

// SaveRegistration stores r, mode 0600, in a directory of mode 0700,
// replacing the client registered with the same issuer.
func (s Store) SaveRegistration(r *Registration) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("client registration: %w", err)
	}
	path := s.registrationPath(r.Issuer)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("client registration: %w", err)
	}
	if err := ondisk.WritePrivate(path, data); err != nil {
		return fmt.Errorf("client registration: %w", err)
	}
	return nil
}

// DeleteRegistration forgets the client registered with issuer.
func (s Store) DeleteRegistration(issuer string) error {
	if err := os.Remove(s.registrationPath(issuer)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("client registration: %w", err)
	}
	return nil
}

// maxRegistrationBody bounds what is read of a registration or token
// endpoint's answer to keep or inspect it.
const maxRegistrationBody = 1 << 20

// registrar is the HTTP transport of one login's requests to the
// authorization server. A registration request identical to the stored
// one is answered with the stored answer, without a request; a new
// registration's answer is kept (fresh) to be stored once the login has
// succeeded with it; a token endpoint that answers invalid_client marks
// the client rejected.
type registrar struct {
	next     http.RoundTripper
	issuer   string
	endpoint string // the registration endpoint
	tokenURL string
	stored   *Registration // to replay, or nil
	now      func() time.Time

	mu       sync.Mutex
	replayed bool
	fresh    *Registration
	rejected bool
}

func (g *registrar) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return g.next.RoundTrip(req)
	}
	switch u := req.URL.String(); {
	case g.endpoint != "" && u == g.endpoint:
		return g.register(req)
	case g.tokenURL != "" && u == g.tokenURL:
		return g.token(req)
	}
	return g.next.RoundTrip(req)
}

// register replays the stored answer to the request it was given for,
// else sends req and keeps a successful answer.
func (g *registrar) register(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxRegistrationBody))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if g.stored != nil && sameJSON(body, g.stored.Request) && !g.stored.expired(g.now()) {
		g.mu.Lock()
		g.replayed = true
		g.mu.Unlock()
		return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(g.stored.Response)),
			ContentLength: int64(len(g.stored.Response)), Request: req}, nil
	}
	out := req.Clone(req.Context())
	out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	resp, err := g.next.RoundTrip(out)
	if err != nil || (resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK) {
		return resp, err
	}
	answer, err := peek(resp)
	if err != nil {
		return nil, err
	}
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	_ = json.Unmarshal(body, &meta)
	reg := &Registration{Issuer: g.issuer, Endpoint: g.endpoint, Request: body, Response: answer}
	if len(meta.RedirectURIs) > 0 {
		reg.RedirectURI = meta.RedirectURIs[0]
	}
	g.mu.Lock()
	g.fresh = reg
	g.mu.Unlock()
	return resp, nil
}

// token sends a token request and notes an invalid_client answer.
func (g *registrar) token(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || (resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized) {
		return resp, err
	}
	answer, err := peek(resp)
	if err != nil {
		return nil, err
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(answer, &e) == nil && e.Error == "invalid_client" || strings.Contains(string(answer), "error=invalid_client") {
		g.reject()
	}
	return resp, nil
}

func (g *registrar) reject() {
	g.mu.Lock()
	g.rejected = true
	g.mu.Unlock()
}

// outcome is whether the stored client was replayed and rejected, and
// the client this login registered, if any.
func (g *registrar) outcome() (replayedAndRejected bool, fresh *Registration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.replayed && g.rejected, g.fresh
}

// sameJSON tells whether a and b are the same JSON text but for
// whitespace (the store indents what it keeps).
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// peek reads resp's body (bounded) and puts it back for the caller.
func peek(resp *http.Response) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRegistrationBody))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	resp.Header.Del("Content-Length")
	return data, nil
}
