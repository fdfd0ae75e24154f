package oauth_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// get GETs u (following redirects) and returns the final answer's status
// and body.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// redirectOf is the loopback redirect URI and the state of an
// authorization URL.
func redirectOf(t *testing.T, authURL string) (redirect, state string) {
	t.Helper()
	p, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	return p.Query().Get("redirect_uri"), p.Query().Get("state")
}

// loginWith logs in to the server at u with open as the browser,
// storing in dir.
func loginWith(ctx context.Context, t *testing.T, u, dir string, open func(string) error) (*oauth.Record, error) {
	t.Helper()
	return oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: u},
		Store: oauth.Store{Dir: dir}, Open: open,
	})
}

// O1: another local user who learnt the authorization URL (state and
// PKCE challenge; it used to be on the browser's command line) logs in
// as themself and delivers their own code to the victim's loopback
// listener first. The listener answers "ignored" to a connection that is
// not the victim's, the attacker's code is never exchanged, the victim's
// own redirect completes the login and the victim's store holds the
// victim's token, not the attacker's.
func TestLogin_AnotherUsersCallbackIsIgnored(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	attacker := newStranger(t)
	as := newCodeServer(t)
	dir := t.TempDir()
	var attackerSaw string
	notices := make(chan string, 2)
	rec, err := oauth.Login(ctx, oauth.LoginOptions{
		Spec:  messages.ServerSpec{Name: "remote", Transport: messages.TransportHTTP, URL: protected(t, as.srv.URL)},
		Store: oauth.Store{Dir: dir},
		Open: func(authURL string) error {
			attackerSaw = attacker.get(ctx, t, authURL+"&as_user=attacker")
			return followRedirect(authURL)
		},
		Ignored: func(notice string) { notices <- notice },
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	select {
	case n := <-notices:
		if !strings.Contains(n, fmt.Sprintf("uid %d", attacker.UID)) {
			t.Errorf("the person was told %q, want the ignored uid %d named", n, attacker.UID)
		}
	default: // the attacker's request was answered before the login returned
		t.Error("the person was not told that a request was ignored")
	}
	if !strings.HasPrefix(attackerSaw, "403 ") || !strings.Contains(attackerSaw, "ignored") {
		t.Errorf("the attacker's callback was answered %q, want 403 ignored", attackerSaw)
	}
	if _, exchanged := as.counts(); strings.Join(exchanged, ",") != "code-1" {
		t.Errorf("codes exchanged: %v, want only the victim's code-1", exchanged)
	}
	loaded, err := oauth.Store{Dir: dir}.Load("remote", rec.Resource)
	if err != nil || loaded.AccessToken != "login-access-zq" {
		t.Errorf("stored token %q (%v), want the victim's login-access-zq", loaded.AccessToken, err)
	}
}

// A redirect with another state from the user's own connection is
// another program of the user's (or an old tab) handing the login a code:
// the login aborts, loudly, before anything is exchanged, and stores
// nothing.
func TestLogin_ForeignStateAbortsTheLogin(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	dir := t.TempDir()
	var code int
	var body string
	_, err := loginWith(ctx, t, protected(t, as.srv.URL), dir, func(authURL string) error {
		redirect, _ := redirectOf(t, authURL)
		code, body = get(t, redirect+"?code=code-1&state=forged")
		return nil
	})
	if !errors.Is(err, oauth.ErrForeignCallback) || !strings.Contains(err.Error(), "aborted") {
		t.Fatalf("login with a forged state: %v, want ErrForeignCallback", err)
	}
	if code != http.StatusBadRequest || !strings.Contains(body, "aborted") {
		t.Errorf("the forged callback was answered %d %q", code, body)
	}
	if _, exchanged := as.counts(); len(exchanged) != 0 {
		t.Errorf("codes exchanged: %v, want none", exchanged)
	}
	if recs, _ := (oauth.Store{Dir: dir}).List(); len(recs) != 0 {
		t.Errorf("a token was stored: %+v", recs[0].Summary())
	}
}

// A second redirect with the login's state means someone else knows the
// state: the login aborts and keeps no token, even though the first
// redirect was exchanged.
func TestLogin_SecondCallbackAbortsTheLogin(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	dir := t.TempDir()
	var code int
	_, err := loginWith(ctx, t, protected(t, as.srv.URL), dir, func(authURL string) error {
		if err := followRedirect(authURL); err != nil {
			return err
		}
		redirect, state := redirectOf(t, authURL)
		code, _ = get(t, redirect+"?code=other-code&state="+url.QueryEscape(state))
		return nil
	})
	if !errors.Is(err, oauth.ErrDuplicateCallback) {
		t.Fatalf("login with two callbacks: %v, want ErrDuplicateCallback", err)
	}
	if code != http.StatusBadRequest {
		t.Errorf("the second callback was answered %d, want 400", code)
	}
	if recs, _ := (oauth.Store{Dir: dir}).List(); len(recs) != 0 {
		t.Errorf("a token was stored: %+v", recs[0].Summary())
	}
}

// A second redirect that arrives while the first one's code is being
// exchanged still aborts the login: the token is discarded, not stored.
func TestLogin_SecondCallbackAfterTheExchangeDiscardsTheToken(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	dir := t.TempDir()
	var second string
	as.onExchange = func() { _, _ = get(t, second) }
	_, err := loginWith(ctx, t, protected(t, as.srv.URL), dir, func(authURL string) error {
		redirect, state := redirectOf(t, authURL)
		second = redirect + "?code=other-code&state=" + url.QueryEscape(state)
		return followRedirect(authURL)
	})
	if !errors.Is(err, oauth.ErrDuplicateCallback) {
		t.Fatalf("login with a second callback during the exchange: %v, want ErrDuplicateCallback", err)
	}
	if _, exchanged := as.counts(); strings.Join(exchanged, ",") != "code-1" {
		t.Errorf("codes exchanged: %v, want code-1 only", exchanged)
	}
	if recs, _ := (oauth.Store{Dir: dir}).List(); len(recs) != 0 {
		t.Errorf("a token was stored: %+v", recs[0].Summary())
	}
}

// What the listener ignores (another path, a favicon) is answered
// "ignored", never "logged in", and the login goes on.
func TestLogin_OtherRequestsAreAnsweredIgnored(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newCodeServer(t)
	var code int
	var body string
	_, err := loginWith(ctx, t, protected(t, as.srv.URL), t.TempDir(), func(authURL string) error {
		redirect, _ := redirectOf(t, authURL)
		code, body = get(t, strings.TrimSuffix(redirect, "/callback")+"/favicon.ico")
		return followRedirect(authURL)
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	if code != http.StatusNotFound || !strings.Contains(body, "ignored") || strings.Contains(body, "logged in") {
		t.Errorf("a favicon request was answered %d %q, want 404 ignored", code, body)
	}
}
