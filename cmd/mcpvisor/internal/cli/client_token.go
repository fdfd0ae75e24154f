package cli

import (
	"fmt"
	"os"
	"strings"
)

// loadToken returns the API token from the file named by --token-file,
// else from $MCPVISOR_TOKEN; "" means none. Surrounding white space (the
// newline an editor adds) is not part of the token.
func loadToken(file string, lookup func(string) (string, bool)) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("--token-file %s is empty: put the token in it, or leave the flag out", file)
		}
		return tok, nil
	}
	v, _ := lookup("MCPVISOR_TOKEN")
	return strings.TrimSpace(v), nil
}
