package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// upstreamError is err, a request's failure on the server's side, as its
// caller gets it: ErrUpstream, and the server's own JSON-RPC error when
// it answered with one, kept as a *jsonrpc.Error in the chain (errors.As
// finds it) with its code, message and data, so that the gateway can
// pass it to its client unchanged (docs/gateway.md, "Errors pass
// through"). Flattening it to text lost all three: a -32602 became a
// -32603, or an isError result. Anything else (a transport failure, a
// crash) is its text. Both are redacted: a server may echo a secret the
// session gave it (a header, a token) in its error.
func upstreamError(redactor interface{ Redact(string) string }, err error) error {
	if wire := serversAnswer(err); wire != nil {
		return fmt.Errorf("%w: %w", ErrUpstream, redactedWire(redactor, wire))
	}
	return fmt.Errorf("%w: %s", ErrUpstream, redactor.Redact(err.Error()))
}

// serversAnswer is the JSON-RPC error the server answered with, if err
// is one: the go-sdk returns it as `calling "method": ` and the error.
// The go-sdk's transports also wrap their own failures around sentinel
// *jsonrpc.Errors ("rejected by transport: " and what happened): those
// say more after the sentinel, and are not the server's answer.
func serversAnswer(err error) *jsonrpc.Error {
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || !strings.HasSuffix(err.Error(), wire.Message) {
		return nil
	}
	return wire
}

// redactedWire is wire with the secrets in its message and data
// removed; the same error when it held none. Data that no longer parses
// once redacted (a secret cut through a JSON escape) goes as the
// redacted text, a JSON string.
func redactedWire(redactor interface{ Redact(string) string }, wire *jsonrpc.Error) *jsonrpc.Error {
	msg := redactor.Redact(wire.Message)
	data := wire.Data
	if len(data) > 0 {
		if text := redactor.Redact(string(data)); text != string(data) {
			data = json.RawMessage(text)
			if !json.Valid(data) {
				data, _ = json.Marshal(text)
			}
		}
	}
	if msg == wire.Message && len(data) == len(wire.Data) && string(data) == string(wire.Data) {
		return wire
	}
	return &jsonrpc.Error{Code: wire.Code, Message: msg, Data: data}
}
