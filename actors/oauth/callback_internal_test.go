package oauth

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// A redirect taken for an earlier authorization request and never waited
// for is not what the next request's wait hands over: expect drops it,
// and the new request's redirect gets through.
func TestCallback_ExpectDropsAnUnreadRedirectOfAnEarlierRequest(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	cb, err := listenForCallback(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	deliver := func(state, code string) {
		t.Helper()
		resp, err := http.Get(cb.redirect + "?state=" + state + "&code=" + code)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("redirect with state %s: %s", state, resp.Status)
		}
	}
	for i, state := range []string{"first", "second"} {
		if err := cb.expect("https://as.example/authorize?state=" + url.QueryEscape(state)); err != nil {
			t.Fatal(err)
		}
		deliver(state, []string{"stale-code", "fresh-code"}[i])
	}
	res, err := cb.wait(ctx)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	if res.Code != "fresh-code" || res.State != "second" {
		t.Errorf("wait handed over code %q with state %q, want the second request's fresh-code", res.Code, res.State)
	}
}

// The authorization server's error_description (text anyone can put in a
// redirect) reaches the person's terminal through the login's error with
// its escape sequences and other unprintable runes escaped.
func TestAuthorizationError_EscapesWhatATerminalWouldInterpret(t *testing.T) {
	t.Parallel()
	e := &AuthorizationError{Code: "access_denied\x1b[2J", Description: "\x1b]0;owned\x07session expired\u202e, enter your password\r\nok"}
	got := e.Error()
	want := `the authorization server refused: access_denied\x1b[2J (\x1b]0;owned\asession expired\u202e, enter your password\r\nok)`
	if got != want {
		t.Errorf("error text\n %q\nwant\n %q", got, want)
	}
}
