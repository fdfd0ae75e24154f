package config_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// The oauth object is read, expanded and its secret redacted; a change of
// it restarts the server.
func TestParseFile_OAuthObject(t *testing.T) {
	t.Parallel()
	src := `{"servers": {"r": {"url": "https://h.example/mcp", "oauth": {
		"clientId": "mcpvisor-${HOST}", "clientSecret": "${TOKEN}", "scopes": ["read", "write"],
		"grant": "client_credentials", "privateKeyFile": "~/key.pem", "clientMetadataUrl": "https://c.example/client.json"}}}}`
	got := onlyServer(t, src, testOpts())
	want := &messages.OAuthSpec{ClientID: "mcpvisor-api.example.com", ClientSecret: "tok-1234", Scopes: []string{"read", "write"},
		Grant: messages.GrantClientCredentials, PrivateKeyFile: "/home/ada/key.pem", ClientMetadataURL: "https://c.example/client.json"}
	if diff := cmp.Diff(want, got.OAuth); diff != "" {
		t.Errorf("oauth (-want +got):\n%s", diff)
	}
	if r := redact.New(config.SecretsOf(got)...); strings.Contains(r.Redact("secret tok-1234"), "tok-1234") {
		t.Error("the client secret is not redacted")
	}
	without := onlyServer(t, `{"servers": {"r": {"url": "https://h.example/mcp"}}}`, testOpts())
	if without.Fingerprint == got.Fingerprint {
		t.Error("the oauth object does not change the fingerprint")
	}
	if !slices.Contains(config.ChangedFields(without, got), "oauth") {
		t.Errorf("ChangedFields %v does not name oauth", config.ChangedFields(without, got))
	}
}

func TestParseFile_OAuthErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, oauth, want string }{
		{"not an object", `"x"`, "oauth must be an object"},
		{"unknown grant", `{"grant": "password"}`, `must be "authorization_code" or "client_credentials"`},
		{"client credentials without id", `{"grant": "client_credentials", "clientSecret": "s"}`, "needs a clientId"},
		{"client credentials without credential", `{"grant": "client_credentials", "clientId": "c"}`, "needs a clientSecret or a privateKeyFile"},
		{"unset variable", `{"clientSecret": "${NOPE}"}`, "NOPE"},
		{"issuer not a URL", `{"issuer": "auth.example.com"}`, "oauth.issuer must be an absolute https URL"},
		{"token URL over http", `{"tokenUrl": "http://auth.example.com/token"}`, "oauth.tokenUrl must use https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := config.ParseFile(testPath, []byte(`{"servers": {"r": {"url": "https://h.example/mcp", "oauth": `+tt.oauth+`}}}`), testOpts())
			if len(p.Invalid) != 1 || !strings.Contains(p.Invalid[0].Reason, tt.want) {
				t.Fatalf("want the entry invalid with %q; invalid %v, diagnostics:\n%s", tt.want, p.Invalid, formatDiags(p.Diagnostics))
			}
		})
	}
}

// The authorization server a secret may go to is read, takes part in the
// fingerprint, and may be http only on loopback; a secret without one is
// warned about (it goes to the first authorization server the server
// names, which is then held).
func TestParseFile_OAuthAuthorizationServer(t *testing.T) {
	t.Parallel()
	parse := func(oauth string) config.ParsedFile {
		return config.ParseFile(testPath, []byte(`{"servers": {"r": {"url": "https://h.example/mcp", "oauth": `+oauth+`}}}`), testOpts())
	}
	named := parse(`{"clientId": "c", "clientSecret": "s", "issuer": "https://auth.example.com", "tokenUrl": "http://127.0.0.1:9/token"}`)
	if len(named.Servers) != 1 || len(named.Diagnostics) != 0 {
		t.Fatalf("want one server and no diagnostics:\n%s", formatDiags(named.Diagnostics))
	}
	if o := named.Servers[0].OAuth; o.Issuer != "https://auth.example.com" || o.TokenURL != "http://127.0.0.1:9/token" {
		t.Errorf("issuer %q, token URL %q", o.Issuer, o.TokenURL)
	}
	unnamed := parse(`{"clientId": "c", "clientSecret": "s"}`)
	if len(unnamed.Servers) != 1 || len(unnamed.Diagnostics) != 1 || !strings.Contains(unnamed.Diagnostics[0].Message, "name yours with oauth.issuer or oauth.tokenUrl") {
		t.Errorf("want the entry kept with one warning about where the secret goes:\n%s", formatDiags(unnamed.Diagnostics))
	}
	if unnamed.Servers[0].Fingerprint == named.Servers[0].Fingerprint {
		t.Error("the authorization server does not change the fingerprint")
	}
}
