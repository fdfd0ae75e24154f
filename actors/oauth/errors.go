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
	// Refused is set when the server named an authorization server that
	// its client's credentials may not go to (pin.go): not a login but
	// the config, or forgetting the token, is the cure, and it says which.
	Refused *AuthServerRefusedError
}

func (e *NeedsAuthError) Error() string {
	if e.Refused != nil {
		return "oauth: " + e.Refused.Error()
	}
	return fmt.Sprintf("needs authorization: run `mcpvisor auth login %s` (%s)", e.Server, e.Reason)
}

// Unwrap is the refusal, if that is what this is.
func (e *NeedsAuthError) Unwrap() error {
	if e.Refused != nil {
		return e.Refused
	}
	return nil
}

// IsNeedsAuth reports whether err is, or wraps, a NeedsAuthError.
func IsNeedsAuth(err error) bool {
	var na *NeedsAuthError
	return errors.As(err, &na)
}
