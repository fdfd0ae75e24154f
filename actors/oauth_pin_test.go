package actors_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/oauth"
	"github.com/mcpvisor/mcpvisor/messages"
)

// settled waits for server's first move to ready, failed or needs-auth.
func settled(t *testing.T, rec *actorstest.Recorder, server string) *messages.ServerStateChanged {
	t.Helper()
	_, ev := rec.WaitFor(actorstest.Context(t), 0, server+" settled", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == server && (sc.To == messages.StateReady || sc.To == messages.StateFailed || sc.To == messages.StateNeedsAuth)
	})
	return ev.(*messages.ServerStateChanged)
}

// ecKeyFile writes a P-256 private key in PEM and returns its path.
func ecKeyFile(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// O2: a resource server on one loopback port whose protected resource
// metadata names an authorization server on another origin once received
// the configured client secret (`Basic robot:<secret>`, six times in four
// seconds). The secret, or the private key's assertion, goes only to the
// authorization server the config names (oauth.issuer, oauth.tokenUrl)
// or, named by neither, the one recorded with the server's token: the
// other one is sent nothing at all, the error names both and the fix,
// and the server waits in needs-auth with no retry armed.
func TestOAuth_SecretGoesOnlyToThePinnedAuthorizationServer(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		oauth    func(t *testing.T, legit *authServer) map[string]any
		recorded bool   // a record holds the legitimate authorization server
		want     string // in the error: where the pin comes from
	}{
		"config names the issuer": {
			oauth: func(_ *testing.T, legit *authServer) map[string]any {
				return map[string]any{"clientSecret": "robot-secret-zq", "issuer": legit.srv.URL}
			},
			want: "oauth.issuer",
		},
		"config names the token URL": {
			oauth: func(_ *testing.T, legit *authServer) map[string]any {
				return map[string]any{"clientSecret": "robot-secret-zq", "tokenUrl": legit.srv.URL + "/token"}
			},
			want: "oauth.tokenUrl",
		},
		"config names the issuer of a private key": {
			oauth: func(t *testing.T, legit *authServer) map[string]any {
				return map[string]any{"privateKeyFile": ecKeyFile(t), "issuer": legit.srv.URL}
			},
			want: "oauth.issuer",
		},
		"the first one seen is held": {
			oauth: func(*testing.T, *authServer) map[string]any {
				return map[string]any{"clientSecret": "robot-secret-zq"}
			},
			recorded: true,
			want:     "mcpvisor auth logout robot",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			legit, evil := newAuthServer(t), newAuthServer(t)
			url := evil.protect("/mcp") // its metadata names the evil authorization server
			dir := t.TempDir()
			if c.recorded {
				err := oauth.Store{Dir: dir}.Save(&oauth.Record{Server: "robot", Resource: url, Issuer: legit.srv.URL,
					TokenURL: legit.srv.URL + "/token", ClientID: "robot"})
				if err != nil {
					t.Fatal(err)
				}
			}
			spec := c.oauth(t, legit)
			spec["grant"], spec["clientId"] = "client_credentials", "robot"
			clock := quartz.NewMock(t)
			sup, rec := startOAuth(t, clock, dir, map[string]any{"robot": map[string]any{"url": url, "oauth": spec}})
			ev := settled(t, rec, "robot")
			if ev.To != messages.StateNeedsAuth {
				t.Fatalf("robot went %s (%s), want needs-auth", ev.To, ev.Error)
			}
			if got := evil.requestsSeen(); slices.Contains(got, "POST /token") {
				t.Errorf("the authorization server the config does not name was sent a token request: %v", got)
			}
			if got := legit.grantsAsked(); len(got) != 0 {
				t.Errorf("the legitimate authorization server was asked %v for a server that does not name it", got)
			}
			for _, want := range []string{"refused", "were not sent", `"` + evil.srv.URL + `"`, legit.srv.URL, c.want} {
				if !strings.Contains(ev.Error, want) {
					t.Errorf("error %q does not say %q", ev.Error, want)
				}
			}
			st := statusOf(sup, "robot")
			if !st.NextRetry.IsZero() || st.Attempt != 0 {
				t.Errorf("status %+v: a refusal is terminal, want no retry armed", st)
			}
			status, _ := json.Marshal(sup.Status())
			if s := containsAny(string(status)+rec.Dump(), "robot-secret-zq"); s != "" {
				t.Errorf("secret %q in status or events", s)
			}
		})
	}
}

// The authorization server a client secret went to first is recorded
// with the token, and one the config names is used when the server
// names it too.
func TestOAuth_PinnedAuthorizationServerIsUsedAndRecorded(t *testing.T) {
	t.Parallel()
	for name, named := range map[string]bool{"named by the config": true, "first seen": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			as := newAuthServer(t)
			url := as.protect("/mcp")
			spec := map[string]any{"grant": "client_credentials", "clientId": "robot", "clientSecret": "robot-secret-zq"}
			if named {
				spec["issuer"] = as.srv.URL
			}
			dir := t.TempDir()
			_, rec := startOAuth(t, quartz.NewMock(t), dir, map[string]any{"robot": map[string]any{"url": url, "oauth": spec}})
			rec.WaitState(ctx, 0, "robot", messages.StateReady)
			stored, err := oauth.Store{Dir: dir}.Load("robot", url)
			if err != nil || stored.Issuer != as.srv.URL || stored.TokenURL != as.srv.URL+"/token" {
				t.Errorf("stored %+v, %v: want the authorization server recorded", stored, err)
			}
		})
	}
}
