package httpguard_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
)

// Every method is checked (http.CrossOriginProtection alone lets GET,
// HEAD and OPTIONS through); no Origin, the server's own and trusted ones
// pass; Sec-Fetch-Site decides when present.
func TestOrigins_Check(t *testing.T) {
	t.Parallel()
	o, err := httpguard.NewOrigins([]string{"http://localhost:3000"})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPost, http.MethodDelete} {
		for _, tc := range []struct {
			headers map[string]string
			refused bool
		}{
			{nil, false},
			{map[string]string{"Origin": "http://127.0.0.1:7767"}, false}, // the Host asked for
			{map[string]string{"Origin": "http://localhost:3000"}, false},
			{map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
			{map[string]string{"Sec-Fetch-Site": "none"}, false}, // typed into the address bar
			{map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:3000"}, false},
			{map[string]string{"Origin": "http://127.0.0.1:7768"}, true},
			{map[string]string{"Origin": "https://127.0.0.1:7767x"}, true},
			{map[string]string{"Origin": "null"}, true},
			{map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
			{map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://localhost:8080"}, true},
		} {
			r := httptest.NewRequest(method, "http://127.0.0.1:7767/x", nil)
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			err := o.Check(r)
			if (err != nil) != tc.refused {
				t.Errorf("%s with %v: %v, want refused=%v", method, tc.headers, err, tc.refused)
			}
			if err != nil && !strings.Contains(err.Error(), "--allow-origin") {
				t.Errorf("refusal %q does not say how to trust an origin", err)
			}
			if r.Method != method {
				t.Fatalf("Check changed the request's method to %s", r.Method)
			}
		}
	}
}

func TestToken_Authorized(t *testing.T) {
	t.Parallel()
	tok := httpguard.NewToken("s3cret")
	for auth, want := range map[string]bool{
		"Bearer s3cret": true, "bearer s3cret": true, "Bearer  s3cret ": true,
		"": false, "Bearer": false, "Bearer s3cre": false, "Bearer s3cretx": false, "Basic s3cret": false, "s3cret": false,
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", auth)
		if got := tok.Authorized(r); got != want {
			t.Errorf("Authorization %q: %v, want %v", auth, got, want)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer ")
	if httpguard.NewToken("").Authorized(r) || httpguard.NewToken("").Set() {
		t.Error("the empty token let a request through")
	}
}
