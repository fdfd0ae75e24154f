package oauth

import (
	"errors"
	"fmt"
)

// NeedsAuthError says a server needs authorization that only a person can
// give. Its text says what to run.
type NeedsAuthError struct {
	Server string
	// Reason is why no usable token is at hand: "no token stored",
	// "refresh failed: ...", "the server asks for scope ...".
	Reason string
}

func (e *NeedsAuthError) Error() string {
	return fmt.Sprintf("needs authorization: run `mcpvisor auth login %s` (%s)", e.Server, e.Reason)
}

// IsNeedsAuth reports whether err is, or wraps, a NeedsAuthError.
func IsNeedsAuth(err error) bool {
	var na *NeedsAuthError
	return errors.As(err, &na)
}
