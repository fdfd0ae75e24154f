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
