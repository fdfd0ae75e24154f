package httpguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// Token checks "Authorization: Bearer TOKEN". The zero Token accepts
// nothing.
type Token struct {
	// sum is the SHA-256 of the token, nil without one. Comparing
	// fixed-length digests in constant time leaks neither the token nor
	// its length.
	sum []byte
}

// NewToken returns the check for token; "" gives one that refuses every
// request.
func NewToken(token string) Token {
	if token == "" {
		return Token{}
	}
	sum := sha256.Sum256([]byte(token))
	return Token{sum: sum[:]}
}

// Set reports whether there is a token to compare with.
func (t Token) Set() bool { return t.sum != nil }

// Authorized reports whether r bears the token (the scheme is
// case-insensitive).
func (t Token) Authorized(r *http.Request) bool {
	if t.sum == nil {
		return false
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], t.sum) == 1
}

// MinTokenBytes is the shortest bearer token mcpvisor accepts, on
// loopback too: a short one is guessed in seconds (a 2-byte token fell to
// a brute force in 0.3 s). A generated token is 32 random bytes.
const MinTokenBytes = 32

// CheckToken refuses a token shorter than MinTokenBytes: the one check
// of that rule, with the one message that says it, for the API, the
// gateway and the CLI (each names where the token came from). The empty
// token passes: it means "none", which Token turns into refusing every
// request.
func CheckToken(token string) error {
	if token != "" && len(token) < MinTokenBytes {
		return fmt.Errorf("the token is %d bytes: at least %d are needed, or another local user can guess it; "+
			"make one with: head -c 32 /dev/urandom | base64 > FILE (then chmod 600 FILE)", len(token), MinTokenBytes)
	}
	return nil
}
