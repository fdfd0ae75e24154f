package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// serveHTTP serves the gateway with opts on a loopback port until the
// test ends and returns its endpoint.
func serveHTTP(t *testing.T, h *harness, opts gateway.HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- h.gw.ServeListener(ctx, ln, opts) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + gateway.Path
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize (or GETs, for the SSE stream) with headers
// ("Name: value") and returns the status code.
func post(t *testing.T, method, endpoint string, headers ...string) int {
	t.Helper()
	var body *strings.Reader
	if method == http.MethodPost {
		body = strings.NewReader(initialize)
	} else {
		body = strings.NewReader("")
	}
	ctx, cancel := context.WithCancel(actorstest.Context(t))
	defer cancel() // ends an event stream
	req, err := http.NewRequestWithContext(ctx, method, endpoint, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// Over HTTP the gateway wants its token on every request; with NoAuth it
// wants none; without a token and without NoAuth it serves nobody.
func TestGateway_HTTPRequiresTheToken(t *testing.T) {
	t.Parallel()
	h := startGateway(t, &fakeSource{})
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken})
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Basic " + testToken, http.StatusUnauthorized},
		{"Bearer " + testToken, http.StatusOK},
		{"bearer " + testToken, http.StatusOK},
	} {
		var hs []string
		if tc.auth != "" {
			hs = append(hs, "Authorization: "+tc.auth)
		}
		if got := post(t, http.MethodPost, endpoint, hs...); got != tc.want {
			t.Errorf("initialize with %q = %d, want %d", tc.auth, got, tc.want)
		}
	}
	if got := post(t, http.MethodPost, serveHTTP(t, h, gateway.HTTPOptions{NoAuth: true})); got != http.StatusOK {
		t.Errorf("NoAuth: initialize without a token = %d, want 200", got)
	}
	if got := post(t, http.MethodPost, serveHTTP(t, h, gateway.HTTPOptions{}), "Authorization: Bearer "); got != http.StatusUnauthorized {
		t.Errorf("no token configured: initialize = %d, want 401", got)
	}
}

// A request a web page of another origin made is refused with 403, GET
// (the SSE stream) included and the token notwithstanding; MCP clients
// (no Origin), the gateway's own origin and trusted origins pass.
func TestGateway_HTTPForeignOriginRefused(t *testing.T) {
	t.Parallel()
	h := startGateway(t, &fakeSource{})
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken, AllowOrigins: []string{"http://localhost:3000"}})
	own := strings.TrimSuffix(endpoint, gateway.Path)
	auth := "Authorization: Bearer " + testToken
	for _, tc := range []struct {
		headers []string
		refused bool
	}{
		{nil, false},
		{[]string{"Origin: " + own}, false},
		{[]string{"Origin: http://localhost:3000"}, false},
		{[]string{"Origin: http://evil.example"}, true},
		{[]string{"Origin: http://localhost:3001"}, true},
		{[]string{"Origin: null"}, true},
		{[]string{"Sec-Fetch-Site: cross-site"}, true},
		{[]string{"Sec-Fetch-Site: same-site", "Origin: http://localhost:8080"}, true},
	} {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			got := post(t, method, endpoint, append(tc.headers, auth)...)
			if (got == http.StatusForbidden) != tc.refused {
				t.Errorf("%s with %v = %d, want refused=%v", method, tc.headers, got, tc.refused)
			}
		}
	}
	if _, err := h.gw.Handler(gateway.HTTPOptions{AllowOrigins: []string{"localhost:3000"}}); err == nil {
		t.Error("a malformed AllowOrigins entry was accepted")
	}
}

// A client that sends part of a body and then nothing does not hold the
// handler: once BodyTimeout passes on the clock it is answered 408.
func TestGateway_HTTPTrickledBodyIsCut(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	trap := clock.Trap().AfterFunc("http", "body-read")
	defer trap.Close()
	h := startGateway(t, &fakeSource{})
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken, Clock: clock, BodyTimeout: 3 * time.Second})

	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(endpoint, gateway.Path), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", gateway.Path, testToken, len(initialize), initialize[:10])
	call := trap.MustWait(ctx)
	call.MustRelease(ctx)
	clock.Advance(3 * time.Second).MustWait(ctx)
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetReadDeadline(d)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after the body deadline: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("trickled body answered %d, want 408", res.StatusCode)
	}
}

// A1: a short token is refused when the handler is built, on loopback
// too; wrong tokens are throttled (the shared check, tested in
// internal/httpguard).
func TestGateway_ShortTokenIsRefusedAndGuessesThrottled(t *testing.T) {
	t.Parallel()
	h := startGateway(t, &fakeSource{})
	if _, err := h.gw.Handler(gateway.HTTPOptions{Token: "ab"}); err == nil || !strings.Contains(err.Error(), "at least 32") {
		t.Fatalf("Handler with a 2-byte token: %v, want a refusal", err)
	}
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	handler, err := h.gw.Handler(gateway.HTTPOptions{Token: testToken, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]int{}
	for range 20 {
		r := httptest.NewRequest(http.MethodPost, gateway.Path, strings.NewReader("{}"))
		r.Header.Set("Authorization", "Bearer guess")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		codes[w.Code]++
	}
	if codes[http.StatusUnauthorized] != 10 || codes[http.StatusTooManyRequests] != 10 {
		t.Fatalf("20 wrong guesses: %v, want 10 × 401 then 10 × 429", codes)
	}
}

// Another local user who keeps the guess budget spent used to lock the
// gateway's owner out (every request 429, right token and all). Under
// ServeListener the owner's loopback connections are not throttled; the
// other user still is.
func TestGateway_AnotherUsersGuessesDoNotLockOutTheOwner(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	stranger, shared := testkit.Stranger(t), testkit.SharedTestBinary(t)
	h := startGateway(t, &fakeSource{})
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger) // never advanced: the budget does not refill
	endpoint := serveHTTP(t, h, gateway.HTTPOptions{Token: testToken, Clock: clock})

	if n := stranger.GuessUntilThrottled(ctx, t, shared, endpoint); n != 10 { // HTTPOptions.Token's burst
		t.Fatalf("%s's guesses: %d compared before 429, want the burst of %d", stranger.Name, n, 10)
	}
	if code := post(t, http.MethodPost, endpoint, "Authorization: Bearer "+testToken); code != http.StatusOK {
		t.Errorf("the owner's right token while %s is throttled: %d, want 200", stranger.Name, code)
	}
	if code := post(t, http.MethodPost, endpoint, "Authorization: Bearer the-owners-own-typo"); code != http.StatusUnauthorized {
		t.Errorf("the owner's wrong token: %d, want 401 (compared, not throttled)", code)
	}
	if n := stranger.GuessUntilThrottled(ctx, t, shared, endpoint); n != 0 {
		t.Fatalf("%s after the owner's requests: %d guesses compared, want none (still throttled)", stranger.Name, n)
	}
}
