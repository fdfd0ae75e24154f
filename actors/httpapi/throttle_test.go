package httpapi_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/quartz"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
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

// Another local user who keeps the guess budget spent (about one wrong
// token a second would do) used to lock the owner out: every request of
// the owner, right token and all, was answered 429. Now the owner's
// connections (loopback TCP from the server's own uid, or the Unix
// socket) are not throttled, while the other user still is.
func TestServe_AnotherUsersGuessesDoNotLockOutTheOwner(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	stranger, shared := testkit.Stranger(t), testkit.SharedTestBinary(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "api.sock")
	unix, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger) // never advanced: the budget does not refill
	srv, err := httpapi.New(httpapi.Options{Fleet: &httpapitest.Fleet{}, Token: testToken, Clock: clock, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, tcp, unix) }()
	t.Cleanup(func() { stop(); <-served })
	status := "http://" + tcp.Addr().String() + "/api/v1/status"

	if n := stranger.GuessUntilThrottled(ctx, t, shared, status); n != httpapi.GuessBurst {
		t.Fatalf("%s's guesses: %d compared before 429, want the burst of %d", stranger.Name, n, httpapi.GuessBurst)
	}
	overTCP := &http.Client{Transport: &http.Transport{}}
	overUnix := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	for via, client := range map[string]*http.Client{"TCP": overTCP, "the Unix socket": overUnix} {
		if code := getStatus(ctx, t, client, status, testToken); code != http.StatusOK {
			t.Errorf("the owner's right token over %s while %s is throttled: %d, want 200", via, stranger.Name, code)
		}
		if code := getStatus(ctx, t, client, status, "the-owners-own-typo"); code != http.StatusUnauthorized {
			t.Errorf("the owner's wrong token over %s: %d, want 401 (compared, not throttled)", via, code)
		}
		client.CloseIdleConnections()
	}
	if n := stranger.GuessUntilThrottled(ctx, t, shared, status); n != 0 {
		t.Fatalf("%s after the owner's requests: %d guesses compared, want none (still throttled)", stranger.Name, n)
	}
}

// getStatus sends GET url bearing token and returns the answer's status.
func getStatus(ctx context.Context, t *testing.T, client *http.Client, url, token string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
