package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// A1: a short token is refused when the API is built, on loopback too.
func TestNew_ShortTokenIsRefused(t *testing.T) {
	t.Parallel()
	_, err := httpapi.New(httpapi.Options{Fleet: nil, Token: "ab"})
	if err == nil || !strings.Contains(err.Error(), "at least 32") || !strings.Contains(err.Error(), "/dev/urandom") {
		t.Fatalf("New with a 2-byte token: %v, want a refusal saying how to make a token", err)
	}
}

// A1: wrong tokens are throttled: after a burst, 429 with Retry-After and
// the token not compared, even the right one; a second later one guess
// more; the owner's right token is never held up by its own requests.
func TestAuth_WrongTokensAreThrottled(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	ts, _ := api(t, httpapi.Options{Clock: clock})
	for range 50 {
		if res := request(t, ts, http.MethodGet, "/api/v1/status", ""); res.code != http.StatusOK {
			t.Fatalf("the right token: %d, want 200", res.code)
		}
	}
	for i := range 10 {
		if res := request(t, ts, http.MethodGet, "/api/v1/status", "", "Authorization: Bearer guess"); res.code != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d, want 401", i, res.code)
		}
	}
	res := request(t, ts, http.MethodGet, "/api/v1/status", "", "Authorization: Bearer guess")
	if res.code != http.StatusTooManyRequests || res.header.Get("Retry-After") != "1" {
		t.Fatalf("guess 11: %d, Retry-After %q; want 429, 1", res.code, res.header.Get("Retry-After"))
	}
	if res := request(t, ts, http.MethodGet, "/api/v1/status", ""); res.code != http.StatusTooManyRequests {
		t.Fatalf("the right token while throttled: %d, want 429 (uncompared)", res.code)
	}
	clock.Advance(httpapi.GuessEvery)
	if res := request(t, ts, http.MethodGet, "/api/v1/status", ""); res.code != http.StatusOK {
		t.Fatalf("the right token a second later: %d, want 200", res.code)
	}
}
