package relay

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// What a server's request is answered with always has a JSON-RPC code:
// the go-sdk sends the first *jsonrpc.Error it finds in the chain, and 0
// when there is none, which the server cannot act on.
func TestWithCode_EveryAnswerHasACode(t *testing.T) {
	t.Parallel()
	refused := &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no client"}
	for _, tc := range []struct {
		name string
		err  error
		want int64
	}{
		{"plain", errors.New("connection closed"), jsonrpc.CodeInternalError},
		{"coded", fmt.Errorf("sampling for %q: %w", "s", refused), jsonrpc.CodeMethodNotFound},
		{"code 0", fmt.Errorf("sampling: %w", &jsonrpc.Error{Message: "zero"}), jsonrpc.CodeInternalError},
	} {
		var wire *jsonrpc.Error
		if !errors.As(withCode(tc.err), &wire) || wire.Code != tc.want {
			t.Errorf("%s: %v, want code %d", tc.name, wire, tc.want)
		}
		if got := withCode(tc.err).Error(); got != tc.err.Error() {
			t.Errorf("%s: message %q, want %q", tc.name, got, tc.err.Error())
		}
	}
}
