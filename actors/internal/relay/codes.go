package relay

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// withCode is err, the answer to a server's request (sampling,
// elicitation), as the server gets it: the go-sdk sends an error's
// message with the code of the *jsonrpc.Error it wraps, and with code 0,
// which no JSON-RPC peer understands, when it wraps none (issue 24: a
// server asking a gateway client that could not sample got code 0). An
// error that carries a code keeps it (the client's own answer, a
// refusal of the relay's or the gateway's); any other is -32603, an
// internal error.
func withCode(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != 0 {
		return err
	}
	return &coded{err: err, wire: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}}
}

// coded is an error with a JSON-RPC code put on it.
type coded struct {
	err  error
	wire *jsonrpc.Error
}

func (e *coded) Error() string   { return e.err.Error() }
func (e *coded) Unwrap() []error { return []error{e.wire, e.err} } // the code first: the go-sdk takes the first it finds
