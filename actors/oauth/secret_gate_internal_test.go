package oauth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// The secret gate holds a login's flow to the token endpoint discovery
// checked, even if the server answers the go-sdk's own discovery with
// another authorization server: a request carrying the secret, in a Basic
// header or the form, goes nowhere else; other requests pass.
func TestSecretGate_SecretGoesOnlyToTheTokenEndpoint(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	gate := &secretGate{secret: "s3cr/t zq", tokenURL: srv.URL + "/token", next: http.DefaultTransport}
	client := &http.Client{Transport: gate}
	post := func(path string, basic bool, form url.Values) error {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic {
			req.SetBasicAuth("c", url.QueryEscape("s3cr/t zq"))
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for name, err := range map[string]error{
		"basic elsewhere": post("/other/token", true, url.Values{"grant_type": {"authorization_code"}}),
		"form elsewhere":  post("/other/token", false, url.Values{"client_secret": {"s3cr/t zq"}}),
	} {
		if !errors.Is(err, errSecretElsewhere) {
			t.Errorf("%s: %v, want it refused", name, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d refused requests arrived", n)
	}
	if err := post("/token", true, url.Values{"grant_type": {"authorization_code"}}); err != nil {
		t.Errorf("to the token endpoint: %v", err)
	}
	if err := post("/register", false, url.Values{"client_name": {"mcpvisor"}}); err != nil {
		t.Errorf("without the secret: %v", err)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests arrived, want 2", n)
	}
}
