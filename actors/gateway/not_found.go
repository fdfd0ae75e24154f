package gateway

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// resourceNotFound is the gateway's own answer to a read of a URI that no
// server provides: the go-sdk's resource-not-found error (its code, and
// the URI in data, as a go-sdk server answers), with the URI also in the
// message, so that a client that shows only the message (most do) still
// says which resource was missing. A server's own not-found passes
// through unchanged (errors.go).
func resourceNotFound(uri string) error {
	return &jsonrpc.Error{
		Code:    jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("Resource %s not found", uri),
		Data:    fmt.Appendf(nil, `{"uri":%q}`, uri),
	}
}
