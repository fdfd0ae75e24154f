package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// Record is what is stored for one server and resource: the token and
// what refreshing it needs. It never leaves the store's file: status shows
// a Summary instead.
type Record struct {
	Server   string `json:"server"`
	Resource string `json:"resource"`
	// BoundTo is the resource the token is bound to (RFC 8707), as the
	// protected resource metadata names it; empty means Resource.
	BoundTo string `json:"boundTo,omitempty"`
	// Issuer, TokenURL and RevocationURL are the authorization server's.
	// Issuer (else TokenURL) is also the pin: absent oauth.issuer and
	// oauth.tokenUrl in the config, the only authorization server a
	// configured client secret or key may go to (pin.go).
	Issuer        string `json:"issuer,omitempty"`
	TokenURL      string `json:"tokenUrl"`
	RevocationURL string `json:"revocationUrl,omitempty"`
	// ClientID and ClientSecret are the client the token was issued to
	// (registered dynamically, or the configured one).
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	// WantScopes are scopes the server asked for beyond Scopes (a step-up
	// challenge): the next login asks for the union.
	WantScopes   []string  `json:"wantScopes,omitempty"`
	AccessToken  string    `json:"accessToken"`
	TokenType    string    `json:"tokenType,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// Summary is what may be shown about a record: no token text.
type Summary struct {
	Server      string    `json:"server"`
	Resource    string    `json:"resource"`
	Scopes      []string  `json:"scopes,omitempty"`
	Expiry      time.Time `json:"expiry,omitzero"`
	Refreshable bool      `json:"refreshable"`
}

// Summary returns what may be shown about r.
func (r *Record) Summary() Summary {
	return Summary{Server: r.Server, Resource: r.Resource, Scopes: r.Scopes, Expiry: r.Expiry, Refreshable: r.RefreshToken != ""}
}

// Secrets are the values of r to redact.
func (r *Record) Secrets() []string {
	return nonEmpty(r.AccessToken, r.RefreshToken, r.ClientSecret)
}

func nonEmpty(vals ...string) []string {
	out := vals[:0]
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// ErrNoToken says nothing is stored for a server and resource.
var ErrNoToken = errors.New("no token stored")

// Store keeps one file per server and resource in Dir, readable by the
// user only. Writes are atomic (a temporary file renamed over the old one),
// so the daemon and `mcpvisor auth login` may share it.
type Store struct {
	Dir string
}

// DefaultDir is $XDG_STATE_HOME/mcpvisor/oauth, or
// ~/.local/state/mcpvisor/oauth when XDG_STATE_HOME is unset.
func DefaultDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpvisor", "oauth"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_STATE_HOME nor HOME is set: cannot place the token store")
	}
	return filepath.Join(home, ".local", "state", "mcpvisor", "oauth"), nil
}

// path is the file of a server and resource: the name (made safe) for the
// reader, a hash of both for uniqueness.
func (s Store) path(server, resource string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + resource))
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, server)
	if len(safe) > 64 {
		safe = safe[:64]
	}
	return filepath.Join(s.Dir, safe+"-"+hex.EncodeToString(sum[:6])+".json")
}

// Load reads the record of a server and resource. A file that another
// user owns or can read or write, or whose directory they can write, is
// refused, with what to do about it.
func (s Store) Load(server, resource string) (*Record, error) {
	return s.read(s.path(server, resource))
}

func (s Store) read(path string) (*Record, error) {
	f, err := ondisk.OpenChecked(path, ondisk.NotReadable)
	var exposed *ondisk.ExposedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, ErrNoToken
	case errors.As(err, &exposed):
		return nil, fmt.Errorf("token file %w, or `mcpvisor auth login` again", err)
	case err != nil:
		return nil, fmt.Errorf("token store: %w", err)
	}
	defer f.Close()
	var r Record
	if err := json.NewDecoder(f).Decode(&r); err != nil {
		return nil, fmt.Errorf("token file %s is damaged (%v): run `mcpvisor auth login` again", path, errors.Unwrap(err))
	}
	return &r, nil
}

// Save writes r, mode 0600, in a directory of mode 0700.
func (s Store) Save(r *Record) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := ondisk.WritePrivate(s.path(r.Server, r.Resource), data); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// LoginMarker is the file a login touches after storing a token; the
// daemon watches it and then resyncs, which connects servers waiting in
// needs-auth.
func (s Store) LoginMarker() string { return filepath.Join(s.Dir, "last-login") }

// MarkLogin touches the login marker.
func (s Store) MarkLogin(server string) error {
	if err := os.WriteFile(s.LoginMarker(), []byte(server+"\n"), 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// Delete forgets the record of a server and resource; deleting nothing is
// not an error.
func (s Store) Delete(server, resource string) error {
	if err := os.Remove(s.path(server, resource)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

// List reads every record; a file it cannot use is reported with its
// reason rather than hiding the others.
func (s Store) List() ([]*Record, []error) {
	paths, _ := filepath.Glob(filepath.Join(s.Dir, "*.json"))
	var out []*Record
	var errs []error
	for _, p := range paths {
		r, err := s.read(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	return out, errs
}

func (r *Record) boundTo() string {
	if r.BoundTo != "" {
		return r.BoundTo
	}
	return r.Resource
}

// token is r's token as x/oauth2 has it.
func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// setToken stores t in r, keeping the refresh token when a refresh
// answer carries none. The expiry counts from now on mcpvisor's clock
// (x/oauth2 counts it on the wall clock).
func (r *Record) setToken(t *oauth2.Token, now time.Time) {
	r.AccessToken, r.TokenType, r.Expiry = t.AccessToken, t.TokenType, t.Expiry
	if t.ExpiresIn > 0 {
		r.Expiry = now.Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	if t.RefreshToken != "" {
		r.RefreshToken = t.RefreshToken
	}
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		r.Scopes = strings.Fields(s)
	}
}
