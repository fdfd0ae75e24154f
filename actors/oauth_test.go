package actors_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// realHTTP dials every server the default way.
func realHTTP(messages.ServerSpec) (mcp.Transport, error) { return nil, nil }

// startOAuth runs a supervisor over servers (name -> entry) with its
// token store in dir.
func startOAuth(t *testing.T, clock *quartz.Mock, dir string, servers map[string]any) (*actors.Supervisor, *actorstest.Recorder) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, servers)
	sup, rec := startWithDial(t, clock, realHTTP, actors.Options{ConfigPaths: []string{path}, OAuthDir: dir})
	return sup, rec
}

func statusOf(sup *actors.Supervisor, name string) messages.ServerStatus {
	for _, s := range sup.Status().Servers {
		if s.Name == name {
			return s
		}
	}
	return messages.ServerStatus{}
}

// A protected server with no token waits in needs-auth, saying what to
// run; nothing retries it, and its sibling serves.
func TestOAuth_NoTokenIsNeedsAuthNotFailed(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	sup, rec := startOAuth(t, clock, t.TempDir(), map[string]any{
		"remote": map[string]any{"url": as.protect("/mcp")},
	})
	_, ev := rec.WaitState(ctx, 0, "remote", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, "mcpvisor auth login remote") || !strings.Contains(ev.Error, "no token stored") {
		t.Errorf("error %q does not say what to run and why", ev.Error)
	}
	st := statusOf(sup, "remote")
	if st.State != messages.StateNeedsAuth || !st.NextRetry.IsZero() || st.Attempt != 0 {
		t.Errorf("status %+v: want needs-auth, no retry, no attempt", st)
	}
	if !strings.Contains(st.LastError, "mcpvisor auth login remote") {
		t.Errorf("lastError %q does not say what to run", st.LastError)
	}
}

// plantRecord stores a login's result for server at url.
func plantRecord(t *testing.T, dir string, as *authServer, server, url, access, refresh string, expiry time.Time) {
	t.Helper()
	as.plant(access, refresh)
	err := oauth.Store{Dir: dir}.Save(&oauth.Record{Server: server, Resource: url, Issuer: as.srv.URL, TokenURL: as.srv.URL + "/token",
		ClientID: "cli", AccessToken: access, TokenType: "Bearer", RefreshToken: refresh, Expiry: expiry})
	if err != nil {
		t.Fatal(err)
	}
}

// An access token is refreshed before it expires, by the clock, and the
// token text is never in status or events.
func TestOAuth_RefreshBeforeExpiryOnTheClock(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protect("/mcp")
	plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(5*time.Minute))
	sup, rec := startOAuth(t, clock, dir, map[string]any{"remote": map[string]any{"url": url}})
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	if slices.Contains(as.grantsAsked(), "refresh_token") {
		t.Fatal("refreshed a token that was not about to expire")
	}
	clock.Advance(4*time.Minute + time.Second) // within RefreshSkew of the expiry
	if _, err := sup.CallTool(ctx, "remote__echo", map[string]any{}); err != nil {
		t.Fatalf("call after the refresh: %v", err)
	}
	if got := as.grantsAsked(); !slices.Equal(got, []string{"refresh_token"}) {
		t.Errorf("grants asked %v, want one refresh", got)
	}
	seen := as.tokensSeen("/mcp")
	if last := seen[len(seen)-1]; last != "planted-access-1-zq" {
		t.Errorf("the call carried %q, want the refreshed token", last)
	}
	stored, err := oauth.Store{Dir: dir}.Load("remote", url)
	if err != nil || stored.AccessToken != "planted-access-1-zq" || stored.RefreshToken != "planted-refresh-1-zq" {
		t.Errorf("stored %+v, %v: want the refreshed pair", stored, err)
	}
	status, _ := json.Marshal(sup.Status())
	if s := containsAny(string(status)+rec.Dump(), "planted-access", "planted-refresh"); s != "" {
		t.Errorf("token text %q in status or events", s)
	}
}

// A refresh that fails parks the server in needs-auth with the reason.
func TestOAuth_RefreshFailureIsNeedsAuth(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	as.setFailRefresh(true)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protect("/mcp")
	plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(30*time.Second))
	_, rec := startOAuth(t, clock, dir, map[string]any{"remote": map[string]any{"url": url}})
	_, ev := rec.WaitState(ctx, 0, "remote", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, "refresh failed: invalid_grant refresh token revoked") {
		t.Errorf("error %q does not give the refresh's failure", ev.Error)
	}
	if s := containsAny(rec.Dump(), "planted-access", "planted-refresh"); s != "" {
		t.Errorf("token text %q in events", s)
	}
}

// A token file others can read is refused, with what to do.
func TestOAuth_TokenFileWithWrongPermissionsIsRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protect("/mcp")
	plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(time.Hour))
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	if err := os.Chmod(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	_, rec := startOAuth(t, clock, dir, map[string]any{"remote": map[string]any{"url": url}})
	_, ev := rec.WaitState(ctx, 0, "remote", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, "mode 0644") || !strings.Contains(ev.Error, "chmod 600") {
		t.Errorf("error %q does not explain the refused file", ev.Error)
	}
	if len(as.tokensSeen("/mcp")) != 0 && slices.Contains(as.tokensSeen("/mcp"), "planted-access-0-zq") {
		t.Error("the token of a refused file was sent")
	}
}

// Two servers on one authorization server keep separate tokens.
func TestOAuth_TwoServersOnOneAuthorizationServerKeepSeparateTokens(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	urlA, urlB := as.protect("/a"), as.protect("/b")
	plantRecord(t, dir, as, "alpha", urlA, "planted-access-a-zq", "planted-refresh-a-zq", clock.Now().Add(time.Hour))
	plantRecord(t, dir, as, "beta", urlB, "planted-access-b-zq", "planted-refresh-b-zq", clock.Now().Add(time.Hour))
	_, rec := startOAuth(t, clock, dir, map[string]any{"alpha": map[string]any{"url": urlA}, "beta": map[string]any{"url": urlB}})
	rec.WaitState(ctx, 0, "alpha", messages.StateReady)
	rec.WaitState(ctx, 0, "beta", messages.StateReady)
	for path, want := range map[string]string{"/a": "planted-access-a-zq", "/b": "planted-access-b-zq"} {
		for _, got := range as.tokensSeen(path) {
			if got != want {
				t.Errorf("%s was sent %q, want only %q", path, got, want)
			}
		}
	}
}

// The client-credentials grant needs nobody, and its secret and token
// are never in events.
func TestOAuth_ClientCredentialsIsHeadless(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protect("/mcp")
	sup, rec := startOAuth(t, clock, dir, map[string]any{"robot": map[string]any{"url": url, "oauth": map[string]any{
		"grant": "client_credentials", "clientId": "robot", "clientSecret": "robot-secret-zq"}}})
	rec.WaitState(ctx, 0, "robot", messages.StateReady)
	if got := as.grantsAsked(); !slices.Equal(got, []string{"client_credentials"}) {
		t.Errorf("grants asked %v", got)
	}
	status, _ := json.Marshal(sup.Status())
	if s := containsAny(string(status)+rec.Dump(), "planted-access", "planted-refresh", "robot-secret-zq"); s != "" {
		t.Errorf("secret %q in status or events", s)
	}
}

// The entry's own authorization (an Authorization header set by hand, or
// a headersHelper) turns OAuth off: a stored token is never sent, and a
// refusal is a plain failure, not a login to run (a headersHelper entry
// with no stored token once went to needs-auth).
func TestOAuth_OwnAuthorizationDisablesOAuth(t *testing.T) {
	t.Parallel()
	own := map[string]map[string]any{
		"header": {"headers": map[string]any{"Authorization": "Bearer own-token-zq"}},
		"helper": {"headersHelper": `printf '{"Authorization": "Bearer own-token-zq"}'`},
	}
	for kind, fields := range own {
		for _, stored := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stored=%v", kind, stored), func(t *testing.T) {
				t.Parallel()
				ctx := actorstest.Context(t)
				as := newAuthServer(t)
				clock := quartz.NewMock(t)
				dir := t.TempDir()
				url := as.protect("/mcp")
				if stored {
					plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(time.Hour))
				}
				entry := map[string]any{"url": url}
				maps.Copy(entry, fields)
				_, rec := startOAuth(t, clock, dir, map[string]any{"remote": entry})
				_, failed := rec.WaitState(ctx, 0, "remote", messages.StateFailed)
				if strings.Contains(failed.Error, "auth login") {
					t.Errorf("failure = %q, want the server's refusal, not a login to run", failed.Error)
				}
				seen := as.tokensSeen("/mcp")
				if slices.Contains(seen, "planted-access-0-zq") {
					t.Errorf("the stored token was sent: %v", seen)
				}
				if !slices.Contains(seen, "own-token-zq") {
					t.Errorf("the entry's own token was not sent: %v", seen)
				}
			})
		}
	}
}

// A login by another process (`mcpvisor auth login` with --config, for
// `serve` users) connects the server at once: the daemon watches the
// token store's login marker and resyncs.
func TestOAuth_ALoginElsewhereConnectsTheServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	dir := filepath.Join(t.TempDir(), "state", "mcpvisor", "oauth") // not there yet, as before a first login
	url := as.protect("/mcp")
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, map[string]any{"remote": map[string]any{"url": url}})
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{path}, OAuthDir: dir, ProbeInterval: -1, Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	t.Cleanup(func() { _ = sup.Close() })
	rec.WaitState(ctx, 0, "remote", messages.StateNeedsAuth)
	mark := rec.Len()
	plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", time.Now().Add(time.Hour))
	if err := (oauth.Store{Dir: dir}).MarkLogin("remote"); err != nil {
		t.Fatal(err)
	}
	rec.WaitState(ctx, mark, "remote", messages.StateReady)
}

// A call refused for a larger scope fails at once with a clear error, the
// server goes to needs-auth naming the scope, and the scope is kept for
// the next login; nothing retries it.
func TestOAuth_ScopeStepUpIsNeedsAuthNamingTheScope(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	as := newAuthServer(t)
	clock := quartz.NewMock(t)
	dir := t.TempDir()
	url := as.protectStepUp("/mcp")
	plantRecord(t, dir, as, "remote", url, "planted-access-0-zq", "planted-refresh-0-zq", clock.Now().Add(time.Hour))
	sup, rec := startOAuth(t, clock, dir, map[string]any{"remote": map[string]any{"url": url}})
	rec.WaitState(ctx, 0, "remote", messages.StateReady)
	mark := rec.Len()
	_, err := sup.CallTool(ctx, "remote__echo", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), `asks for scope "write"`) {
		t.Fatalf("call: %v, want a clear step-up error", err)
	}
	_, ev := rec.WaitState(ctx, mark, "remote", messages.StateNeedsAuth)
	if !strings.Contains(ev.Error, `scope "write"`) || !strings.Contains(ev.Error, "mcpvisor auth login remote") {
		t.Errorf("needs-auth error %q does not name the scope and the command", ev.Error)
	}
	stored, err := oauth.Store{Dir: dir}.Load("remote", url)
	if err != nil || !slices.Contains(stored.WantScopes, "write") {
		t.Errorf("stored %v, %v: the scope is not kept for the next login", stored.Summary(), err)
	}
	if st := statusOf(sup, "remote"); !st.NextRetry.IsZero() {
		t.Errorf("a retry is armed: %+v", st)
	}
}
