package cli

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// tokenBytes is the size of a generated token before encoding.
const tokenBytes = 32

// apiToken is the bearer token of the HTTP API or the gateway, and where
// it came from (for messages: never the value).
type apiToken struct {
	value string
	from  string // "MCPVISOR_TOKEN", or a file's path
}

// defaultTokenPath is $XDG_STATE_HOME/mcpvisor/token, else
// ~/.local/state/mcpvisor/token. XDG_STATE_HOME counts only when
// absolute, as the XDG spec says.
func defaultTokenPath(lookup func(string) (string, bool)) (string, error) {
	if v, _ := lookup("XDG_STATE_HOME"); filepath.IsAbs(v) {
		return filepath.Join(v, "mcpvisor", "token"), nil
	}
	if home, _ := lookup("HOME"); home != "" {
		return filepath.Join(home, ".local", "state", "mcpvisor", "token"), nil
	}
	return "", errors.New("no place for the API token: neither XDG_STATE_HOME nor HOME is set; pass --token-file")
}

// serverToken is the token `run` and `serve --transport http` require:
// the one in --token-file, else $MCPVISOR_TOKEN, else the one in the
// default file, which is created (a random token) on first start.
func serverToken(file string, lookup func(string) (string, bool)) (apiToken, error) {
	if file != "" {
		tok, err := readTokenFile(file)
		return apiToken{tok, file}, err
	}
	if v, _ := lookup("MCPVISOR_TOKEN"); strings.TrimSpace(v) != "" {
		return apiToken{strings.TrimSpace(v), "MCPVISOR_TOKEN"}, nil
	}
	path, err := defaultTokenPath(lookup)
	if err != nil {
		return apiToken{}, err
	}
	tok, err := readTokenFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		tok, err = createTokenFile(path)
	}
	return apiToken{tok, path}, err
}

// clientToken is the token the CLI clients send: the one in --token-file,
// else $MCPVISOR_TOKEN, else the one in the default file if there is one
// ("" if not: the daemon then says it wants one).
func clientToken(file string, lookup func(string) (string, bool)) (string, error) {
	if file != "" {
		return readTokenFile(file)
	}
	if v, _ := lookup("MCPVISOR_TOKEN"); strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), nil
	}
	path, err := defaultTokenPath(lookup)
	if err != nil {
		return "", nil // nowhere to look: send none
	}
	tok, err := readTokenFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return tok, err
}

// readTokenFile reads a token file. Like ssh with a private key, it
// refuses a file that another user owns, or that its group or others may
// read or write, or whose directory they may write. Surrounding white
// space (the newline an editor adds) is not part of the token.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	// Anyone who can read it can call every tool; anyone who can write
	// it (or its directory) can make the CLI send the token they chose.
	if err := ondisk.CheckFile(path, st, ondisk.NotReadable); err != nil {
		return "", fmt.Errorf("token file %w", err)
	}
	b := make([]byte, 4096)
	n, err := f.Read(b)
	if err != nil && n == 0 {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	tok := strings.TrimSpace(string(b[:n]))
	if tok == "" {
		return "", fmt.Errorf("token file %s is empty", path)
	}
	return tok, nil
}

// createTokenFile writes a new random token to path (mode 0600, its
// directory 0700 if created). The file appears whole or not at all: it is
// written under another name and linked into place, so two daemons that
// start at once end up with the same token, whichever won.
func createTokenFile(path string) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the token's directory: %w", err)
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(raw)
	tmp, err := os.CreateTemp(dir, ".token-*") // mode 0600
	if err != nil {
		return "", fmt.Errorf("create the token file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(tok + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write the token file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readTokenFile(path) // another daemon was first
	} else if err != nil {
		return "", fmt.Errorf("create the token file: %w", err)
	}
	return tok, nil
}
