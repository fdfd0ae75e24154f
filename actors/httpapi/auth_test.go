package httpapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
)

// routes lists a request for every route; events asks for a replay of an
// empty journal, so the handler writes its greeting and waits.
var routes = []struct{ method, path, body string }{
	{http.MethodGet, "/api/v1/status", ""},
	{http.MethodGet, "/api/v1/tools", ""},
	{http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__echo"}`},
	{http.MethodPost, "/api/v1/resync", `{"dryRun": true}`},
	{http.MethodGet, "/api/v1/prompts", ""},
	{http.MethodPost, "/api/v1/prompts/get", `{"name": "alpha__greet"}`},
	{http.MethodGet, "/api/v1/resources", ""},
	{http.MethodGet, "/api/v1/resources/templates", ""},
	{http.MethodPost, "/api/v1/resources/read", `{"uri": "example://static/readme"}`},
	{http.MethodGet, "/metrics", ""},
	{http.MethodGet, "/api/v1/nope", ""},
}

// With a token, every route but /healthz answers 401 to a request without
// the right bearer token, and serves one with it.
func TestAuth_TokenRequiredOnEveryRouteButHealthz(t *testing.T) {
	t.Parallel()
	const token = "s3cret-t0ken-of-the-auth-test-32+bytes"
	fleet := &httpapitest.Fleet{CallFunc: func(context.Context, string, any) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}, GetPromptFunc: func(context.Context, string, map[string]string) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	}, ReadFunc: func(context.Context, string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	}}
	ts, _ := api(t, httpapi.Options{Fleet: fleet, Token: token})

	for _, rt := range routes {
		// A server per route: each spends two wrong guesses of its
		// budget (see TestAuth_WrongTokensAreThrottled).
		ts, _ := api(t, httpapi.Options{Fleet: fleet, Token: token})
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token, "Bearer"} {
			res := request(t, ts, rt.method, rt.path, rt.body, "Authorization: "+auth)
			if res.code != http.StatusUnauthorized || !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s %s with %q = %d, want 401 with WWW-Authenticate", rt.method, rt.path, auth, res.code)
			}
			if strings.Contains(string(res.body), token) {
				t.Errorf("401 body repeats the token: %s", res.body)
			}
		}
		res := request(t, ts, rt.method, rt.path, rt.body, "Authorization: Bearer "+token)
		if want := http.StatusOK; rt.path == "/api/v1/nope" {
			if res.code != http.StatusNotFound {
				t.Errorf("%s with the token = %d, want 404", rt.path, res.code)
			}
		} else if res.code != want {
			t.Errorf("%s %s with the token = %d %s, want 200", rt.method, rt.path, res.code, res.body)
		}
	}

	ctx := actorstest.Context(t)
	res, _ := openEvents(ctx, t, ts.URL+"/api/v1/events", "Authorization:")
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("events without the token = %d, want 401", res.StatusCode)
	}
	res, r := openEvents(ctx, t, ts.URL+"/api/v1/events", "Authorization: bearer "+token) // the scheme is case-insensitive
	if res.StatusCode != http.StatusOK || r.nextComment() != "mcpvisor events" {
		t.Errorf("events with the token = %d, want 200 and a stream", res.StatusCode)
	}

	if res := request(t, ts, http.MethodGet, "/healthz", "", "Authorization:"); res.code != http.StatusOK {
		t.Errorf("healthz without the token = %d, want 200 (it stays open for probes)", res.code)
	}
}

// An API built without a token and without NoAuth fails closed: every
// route but /healthz answers 401, and says why.
func TestAuth_WithoutATokenNothingIsServed(t *testing.T) {
	t.Parallel()
	srv, err := httpapi.New(httpapi.Options{Fleet: &httpapitest.Fleet{}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, rt := range routes {
		for _, auth := range []string{"", "Bearer ", "Bearer x"} {
			res := request(t, ts, rt.method, rt.path, rt.body, "Authorization: "+auth)
			if res.code != http.StatusUnauthorized || !strings.Contains(res.errorText(t), "started without a token") {
				t.Errorf("%s %s with %q = %d %s, want 401: no token, nobody served", rt.method, rt.path, auth, res.code, res.body)
			}
		}
	}
	if res := request(t, ts, http.MethodGet, "/healthz", "", "Authorization:"); res.code != http.StatusOK {
		t.Errorf("healthz = %d, want 200", res.code)
	}
}

// With NoAuth the API answers only requests for a loopback Host: a page
// whose DNS name was rebound to 127.0.0.1 still sends its own name.
func TestAuth_NoAuthServesOnlyLoopbackHosts(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{NoAuth: true})
	for host, want := range map[string]int{
		"evil.example":      http.StatusForbidden,
		"evil.example:7767": http.StatusForbidden,
		"10.0.0.5:7767":     http.StatusForbidden,
		"localhost:7767":    http.StatusOK,
		"LOCALHOST":         http.StatusOK,
		"127.0.0.1:7767":    http.StatusOK,
		"127.1.2.3":         http.StatusOK,
		"[::1]:7767":        http.StatusOK,
	} {
		req, err := http.NewRequestWithContext(actorstest.Context(t), http.MethodGet, ts.URL+"/api/v1/status", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		res, err := ts.Client().Do(req) // no Authorization header
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %q = %d, want %d", host, res.StatusCode, want)
		}
	}
}

func TestCheckExposure(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", 32)
	for _, tc := range []struct {
		listen, token string
		mention       string // in the error; "" when allowed
	}{
		{"127.0.0.1:7767", "", ""},
		{"localhost:7767", "", ""},
		{"[::1]:7767", "", ""},
		{"127.0.0.1:0", "", ""},
		{"0.0.0.0:7767", "", "MCPVISOR_TOKEN"},
		{":7767", "", "--token-file"},
		{"[::]:7767", "", "MCPVISOR_TOKEN"},
		{"192.168.1.10:7767", "", "MCPVISOR_TOKEN"},
		{"myhost:7767", "", "MCPVISOR_TOKEN"},
		{"0.0.0.0:7767", long, ""},
		{":7767", long, ""},
		{"0.0.0.0:7767", long[:31], "at least 32"},
		{":7767", "tok", "3 bytes"},
		{"127.0.0.1:7767", "tok", "at least 32"}, // loopback too (A1)
		{"7767", "", "host:port"},
	} {
		err := httpapi.CheckExposure(tc.listen, tc.token)
		switch {
		case tc.mention == "" && err != nil:
			t.Errorf("CheckExposure(%q, %q) = %v, want nil", tc.listen, tc.token, err)
		case tc.mention != "" && (err == nil || !strings.Contains(err.Error(), tc.mention)):
			t.Errorf("CheckExposure(%q, %q) = %v, want an error mentioning %s", tc.listen, tc.token, err, tc.mention)
		}
	}
}

// One rule, one message: New and CheckExposure, on loopback or not,
// refuse a short token with CheckToken's words (the CLI's, too).
func TestShortToken_OneMessageEverywhere(t *testing.T) {
	t.Parallel()
	want := httpapi.CheckToken("tok")
	if want == nil || !strings.Contains(want.Error(), "3 bytes") || !strings.Contains(want.Error(), "/dev/urandom") {
		t.Fatalf("CheckToken(3 bytes) = %v, want a refusal naming the length and how to make a token", want)
	}
	_, errNew := httpapi.New(httpapi.Options{Token: "tok"})
	for what, err := range map[string]error{
		"New":                     errNew,
		"CheckExposure(loopback)": httpapi.CheckExposure("127.0.0.1:7767", "tok"),
		"CheckExposure(exposed)":  httpapi.CheckExposure("0.0.0.0:7767", "tok"),
	} {
		if err == nil || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("%s: %v, want it to say %q", what, err, want)
		}
	}
}
