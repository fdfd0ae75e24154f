package oauth_test

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
)

// Two logins to the same authorization server register one client: the
// second replays the stored registration and listens on the port of its
// redirect URI, which a server that insists on the exact registered
// redirect accepts. The registration is kept only for the user.
func TestLogin_ConsecutiveLoginsRegisterOnce(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	u := protected(t, as.srv.URL)
	dir := t.TempDir()
	var redirects []string
	browser := func(authURL string) error {
		redirect, _ := redirectOf(t, authURL)
		redirects = append(redirects, redirect)
		return followRedirect(authURL)
	}
	for i := range 2 {
		rec, err := loginWith(ctx, t, u, dir, browser)
		if err != nil {
			t.Fatalf("login %d: %v", i+1, err)
		}
		if rec.ClientID != "registered-client" {
			t.Errorf("login %d used client %q, want the one registered first", i+1, rec.ClientID)
		}
	}
	if n, _ := as.counts(); n != 1 {
		t.Errorf("%d registrations for two logins, want 1", n)
	}
	if redirects[0] != redirects[1] {
		t.Errorf("redirects %v: the second login did not listen where the client is registered", redirects)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "clients", "*.json"))
	if len(files) != 1 {
		t.Fatalf("registration files %v", files)
	}
	if info, _ := os.Stat(files[0]); info.Mode().Perm() != 0o600 {
		t.Errorf("registration file mode %v, want 0600", info.Mode().Perm())
	}
	if recs, errs := (oauth.Store{Dir: dir}).List(); len(recs) != 1 || len(errs) != 0 {
		t.Errorf("the token store lists %d records and %v: the registration is not a token", len(recs), errs)
	}
}

// A stored client the authorization server no longer knows
// (invalid_client, at the token endpoint or in an error redirect) is
// forgotten, and the login registers anew and succeeds.
func TestLogin_ARejectedClientIsRegisteredAnew(t *testing.T) {
	t.Parallel()
	for name, atAuthorize := range map[string]bool{"token endpoint": false, "error redirect": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			as := newCodeServer(t)
			as.refuseAtAuthorize = atAuthorize
			u := protected(t, as.srv.URL)
			dir := t.TempDir()
			if _, err := loginWith(ctx, t, u, dir, followRedirect); err != nil {
				t.Fatalf("first login: %v", err)
			}
			as.forget()
			opened := 0
			rec, err := loginWith(ctx, t, u, dir, func(authURL string) error { opened++; return followRedirect(authURL) })
			if err != nil {
				t.Fatalf("login after the server forgot the client: %v", err)
			}
			if n, _ := as.counts(); n != 2 || rec.ClientID != "registered-client-2" || opened != 2 {
				t.Errorf("%d registrations, client %q, browser opened %d times; want 2, registered-client-2, 2", n, rec.ClientID, opened)
			}
		})
	}
}

// When the registered redirect's port is taken (by another program,
// perhaps another user squatting it), the login listens elsewhere and
// registers anew for that redirect: the squatter gets nothing.
func TestLogin_ATakenRedirectPortRegistersAnew(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	u := protected(t, as.srv.URL)
	dir := t.TempDir()
	var first string
	if _, err := loginWith(ctx, t, u, dir, func(authURL string) error {
		first, _ = redirectOf(t, authURL)
		return followRedirect(authURL)
	}); err != nil {
		t.Fatalf("first login: %v", err)
	}
	registered, _ := url.Parse(first)
	squat, err := net.Listen("tcp", registered.Host)
	if err != nil {
		t.Fatalf("squat %s: %v", registered.Host, err)
	}
	defer squat.Close()
	if _, err := loginWith(ctx, t, u, dir, followRedirect); err != nil {
		t.Fatalf("login with the port taken: %v", err)
	}
	if n, _ := as.counts(); n != 2 {
		t.Errorf("%d registrations, want 2", n)
	}
}
