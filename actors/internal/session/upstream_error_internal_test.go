package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// A server's JSON-RPC error stays one for the request's caller (errors.As
// finds it, with the server's code and data) while its secrets go: the
// gateway passes it on as it is, so it must not carry the session's
// token to a client.
func TestUpstreamError_KeepsTheServersErrorWithoutSecrets(t *testing.T) {
	t.Parallel()
	const secret = "tok-7f3a9c2e51d84b06"
	redactor := redact.New(secret)
	sent := &jsonrpc.Error{Code: -32001, Message: "token " + secret + " expired", Data: json.RawMessage(`{"token":"` + secret + `","n":1}`)}
	err := upstreamError(redactor, fmt.Errorf("calling %q: %w", "tools/call", sent))

	var wire *jsonrpc.Error
	if !errors.Is(err, ErrUpstream) || !errors.As(err, &wire) {
		t.Fatalf("got %v, want ErrUpstream wrapping the server's *jsonrpc.Error", err)
	}
	if wire.Code != sent.Code {
		t.Errorf("code %d, want the server's %d", wire.Code, sent.Code)
	}
	for what, text := range map[string]string{"error": err.Error(), "message": wire.Message, "data": string(wire.Data)} {
		if strings.Contains(text, secret) {
			t.Errorf("the %s shows the secret: %s", what, text)
		}
	}
	if !json.Valid(wire.Data) || !strings.Contains(string(wire.Data), `"n":1`) {
		t.Errorf("data %s, want the server's JSON with the secret redacted", wire.Data)
	}

	// A transport's failure around one of the go-sdk's sentinels is not
	// the server's answer: what happened, after the sentinel, stays.
	rejected := &jsonrpc.Error{Code: -32004, Message: "rejected by transport"}
	err = upstreamError(redactor, fmt.Errorf("calling %q: %w: %s", "tools/call", rejected, `403: asks for scope "write"`))
	if !strings.Contains(err.Error(), `asks for scope "write"`) {
		t.Errorf("a transport failure lost what happened: %v", err)
	}

	clean := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "n must be positive", Data: json.RawMessage(`{"n":-1}`)}
	if !errors.As(upstreamError(redactor, clean), &wire) || wire != clean {
		t.Errorf("an error without secrets was copied or lost: %v", wire)
	}
}
