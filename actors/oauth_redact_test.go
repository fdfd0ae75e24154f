package actors_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Every token mcpvisor obtains while a session runs (a refresh on the
// clock, a client-credentials token fetched on the first 401) is in the
// session's redactor before it is sent: a server quoting it back in an
// error leaves no trace of it, nor of the new refresh token, in the
// call's error, the events or the status.
func TestOAuth_TokensObtainedWhileRunningAreRedacted(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		entry   func(t *testing.T, as *authServer, dir, url string, now time.Time) map[string]any
		advance time.Duration
	}{
		"refresh on the clock": {
			entry: func(t *testing.T, as *authServer, dir, url string, now time.Time) map[string]any {
				plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", now.Add(5*time.Minute))
				return map[string]any{"url": url}
			},
			advance: 4*time.Minute + time.Second, // within RefreshSkew of the expiry
		},
		"client credentials": {
			entry: func(_ *testing.T, _ *authServer, _, url string, _ time.Time) map[string]any {
				return map[string]any{"url": url, "oauth": map[string]any{
					"grant": "client_credentials", "clientId": "robot", "clientSecret": "robot-secret-zq"}}
			},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			as := newAuthServer(t)
			clock := quartz.NewMock(t)
			dir := t.TempDir()
			url := as.protectServer("/mcp", as.leakyServer(), func(h http.Handler) http.Handler { return h })
			sup, rec := startOAuth(t, clock, dir, map[string]any{"remote": c.entry(t, as, dir, url, clock.Now())})
			rec.WaitState(ctx, 0, "remote", messages.StateReady)
			clock.Advance(c.advance)
			_, err := sup.CallTool(ctx, "remote__leak", map[string]any{})
			if err == nil {
				t.Fatal("the leaking call succeeded")
			}
			seen := as.tokensSeen("/mcp")
			if last := seen[len(seen)-1]; last != "planted-access-1-zq" {
				t.Fatalf("the call carried %q, want the token obtained while running", last)
			}
			if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "[redacted]") {
				t.Errorf("call error %q: want the server's error, redacted", err)
			}
			status, _ := json.Marshal(sup.Status())
			if s := containsAny(err.Error()+string(status)+rec.Dump(), "planted-access-1-zq", "planted-refresh-1-zq"); s != "" {
				t.Errorf("token %q in the call's error, status or events: %v", s, err)
			}
		})
	}
}
