package actors_test

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

func sseEntry(url string) map[string]any { return map[string]any{"type": "sse", "url": url} }

func noWrap(h http.Handler) http.Handler { return h }

// An HTTP+SSE server (2024-11-05) that asks for OAuth gets what a
// streamable one gets: with no token, needs-auth saying what to run, and
// no retry.
func TestOAuthSSE_NoTokenIsNeedsAuth(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	sup, rec := startOAuth(t, clock, t.TempDir(), map[string]any{"legacy": sseEntry(as.protectSSE("/sse", noWrap))})
	_, ev := rec.WaitState(ctx, 0, "legacy", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, "mcpvisor auth login legacy") || !strings.Contains(ev.Error, "no token stored") {
		t.Errorf("error %q does not say what to run and why", ev.Error)
	}
	if st := statusOf(sup, "legacy"); !st.NextRetry.IsZero() || st.Attempt != 0 {
		t.Errorf("status %+v: want no retry, no attempt", st)
	}
}

// Over HTTP+SSE a stored token is sent on the event stream's GET and on
// every POST; a token the server refuses (401, on the GET or on a POST)
// is refreshed once and the request sent again; a token about to expire
// is refreshed on the clock before the call that would carry it.
func TestOAuthSSE_TokenSentRefreshedOn401AndOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protectSSE("/sse", noWrap)
	// A refresh token the server honours, with an access token it never
	// issued: the first GET gets a 401.
	plantRecord(t, dir, as, "legacy", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(5*time.Minute))
	as.revoke("planted-access-0-zq")
	sup, rec := startOAuth(t, clock, dir, map[string]any{"legacy": sseEntry(url)})
	rec.WaitState(ctx, 0, "legacy", messages.StateReady)
	if got := as.grantsAsked(); !slices.Equal(got, []string{"refresh_token"}) {
		t.Fatalf("grants asked %v, want the refresh of the 401", got)
	}
	if seen := as.tokensSeen("/sse"); len(seen) < 2 || seen[0] != "planted-access-0-zq" || seen[len(seen)-1] != "planted-access-1-zq" {
		t.Fatalf("tokens sent %v: want the refused one, then the refreshed one", seen)
	}
	clock.Advance(4 * time.Minute) // the refreshed token has an hour: no refresh yet
	if _, err := sup.CallTool(ctx, "legacy__echo", map[string]any{}); err != nil {
		t.Fatalf("call: %v", err)
	}
	if got := as.grantsAsked(); len(got) != 1 {
		t.Errorf("grants asked %v: a token with an hour left was refreshed", got)
	}
	clock.Advance(55*time.Minute + 30*time.Second) // 30s before its expiry: within RefreshSkew
	if _, err := sup.CallTool(ctx, "legacy__echo", map[string]any{}); err != nil {
		t.Fatalf("call after the refresh: %v", err)
	}
	if got := as.grantsAsked(); !slices.Equal(got, []string{"refresh_token", "refresh_token"}) {
		t.Errorf("grants asked %v, want a second refresh on the clock", got)
	}
	if seen := as.tokensSeen("/sse"); seen[len(seen)-1] != "planted-access-2-zq" {
		t.Errorf("the call carried %q, want the token refreshed on the clock", seen[len(seen)-1])
	}
	// A POST refused with a 401 is refreshed and sent again, body and all.
	as.revoke("planted-access-2-zq")
	if _, err := sup.CallTool(ctx, "legacy__echo", map[string]any{}); err != nil {
		t.Fatalf("call refused with a 401: %v", err)
	}
	if seen := as.tokensSeen("/sse"); len(as.grantsAsked()) != 3 || seen[len(seen)-1] != "planted-access-3-zq" {
		t.Errorf("grants %v, last token %q: want the 401's refresh and the call sent again with it", as.grantsAsked(), seen[len(seen)-1])
	}
	if s := containsAny(rec.Dump(), "planted-access", "planted-refresh"); s != "" {
		t.Errorf("token text %q in events", s)
	}
}

// Over HTTP+SSE a call refused for a larger scope (403
// insufficient_scope) fails at once and parks the server in needs-auth
// naming the scope, as over streamable HTTP.
func TestOAuthSSE_ScopeStepUpIsNeedsAuth(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protectSSE("/sse", func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				if bytes.Contains(body, []byte(`"tools/call"`)) {
					w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="write"`)
					http.Error(w, "insufficient scope", http.StatusForbidden)
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
			next.ServeHTTP(w, r)
		})
	})
	plantRecord(t, dir, as, "legacy", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(time.Hour))
	sup, rec := startOAuth(t, clock, dir, map[string]any{"legacy": sseEntry(url)})
	rec.WaitState(ctx, 0, "legacy", messages.StateReady)
	mark := rec.Len()
	_, err := sup.CallTool(ctx, "legacy__echo", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), `asks for scope "write"`) {
		t.Fatalf("call: %v, want a clear step-up error", err)
	}
	_, ev := rec.WaitState(ctx, mark, "legacy", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, `scope "write"`) || !strings.Contains(ev.Error, "mcpvisor auth login legacy") {
		t.Errorf("needs-auth error %q does not name the scope and the command", ev.Error)
	}
}

// An http server that turns out to speak only HTTP+SSE keeps its OAuth
// across transport detection: the fallback connection sends the token.
func TestOAuthSSE_DetectionFallbackKeepsOAuth(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protectSSE("/sse", noWrap)
	plantRecord(t, dir, as, "legacy", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(time.Hour))
	sup, rec := startOAuth(t, clock, dir, map[string]any{"legacy": map[string]any{"url": url}})
	_, ready := rec.WaitState(ctx, 0, "legacy", messages.StateReady)
	if !strings.Contains(ready.Reason, "over sse") {
		t.Fatalf("ready %q: want the HTTP+SSE fallback", ready.Reason)
	}
	if _, err := sup.CallTool(ctx, "legacy__echo", map[string]any{}); err != nil {
		t.Fatalf("call over the fallback: %v", err)
	}
	for _, tok := range as.tokensSeen("/sse") {
		if tok != "planted-access-0-zq" {
			t.Errorf("a request carried %q, want only the stored token", tok)
		}
	}
}
