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

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// tokenBytes is the size of a generated token before encoding.
const tokenBytes = 32

// apiToken is the bearer token of the HTTP API or the gateway, and where
// it came from (for messages: never the value).
type apiToken struct {
	value string
	from  string // "MCPVISOR_TOKEN", or a file's path
	// hold, for the default file, keeps it from being rotated while this
	// daemon lives (see rotatedToken); nil for a pinned token.
	hold *os.File
}

// release lets the default file be rotated again once every daemon that
// uses it has released it (or exited).
func (t apiToken) release() {
	if t.hold != nil {
		_ = t.hold.Close()
	}
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
// the one in --token-file, else $MCPVISOR_TOKEN (both pinned: never
// rotated), else the one in the default file, which rotatedToken renews
// at each start unless another live daemon uses it. A token shorter than
// 32 bytes is refused: any local user could guess it. The caller
// releases the token when the daemon stops.
func serverToken(file string, lookup func(string) (string, bool)) (apiToken, error) {
	if file != "" {
		tok, err := readTokenFile(file)
		if err == nil {
			err = checkTokenLength(tok, file)
		}
		return apiToken{value: tok, from: file}, err
	}
	if v, _ := lookup("MCPVISOR_TOKEN"); strings.TrimSpace(v) != "" {
		tok := strings.TrimSpace(v)
		return apiToken{value: tok, from: "MCPVISOR_TOKEN"}, checkTokenLength(tok, "MCPVISOR_TOKEN")
	}
	path, err := defaultTokenPath(lookup)
	if err != nil {
		return apiToken{}, err
	}
	return rotatedToken(path)
}

// checkTokenLength refuses a token too short to be safe, with the API's
// one message for it (httpapi.CheckToken), naming where the token came
// from (never the value) and the CLI's ways out.
func checkTokenLength(tok, from string) error {
	if err := httpapi.CheckToken(tok); err != nil {
		return fmt.Errorf("%s: %w; pass it with --token-file FILE, or leave --token-file and MCPVISOR_TOKEN unset to use a generated one", from, err)
	}
	return nil
}

// clientToken is the token the CLI clients send: the one in --token-file,
// else $MCPVISOR_TOKEN, else the one in the default file if there is one
// ("" if not: the daemon then says it wants one).
func clientToken(file string, lookup func(string) (string, bool)) (string, error) {
	tok, from, err := findClientToken(file, lookup)
	if err == nil && tok != "" {
		err = checkTokenLength(tok, from) // a short one is not sent anywhere
	}
	return tok, err
}

// findClientToken is clientToken before the length check: the token and
// where it came from.
func findClientToken(file string, lookup func(string) (string, bool)) (tok, from string, err error) {
	if file != "" {
		tok, err := readTokenFile(file)
		return tok, file, err
	}
	if v, _ := lookup("MCPVISOR_TOKEN"); strings.TrimSpace(v) != "" {
		return strings.TrimSpace(v), "MCPVISOR_TOKEN", nil
	}
	path, err := defaultTokenPath(lookup)
	if err != nil {
		return "", "", nil // nowhere to look: send none
	}
	tok, err = readTokenFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", path, nil
	}
	return tok, path, err
}

// readTokenFile reads a token file. Like ssh with a private key, it
// refuses a file that another user owns, or that its group or others may
// read or write, or whose directory they may write. Surrounding white
// space (the newline an editor adds) is not part of the token.
func readTokenFile(path string) (string, error) {
	// Anyone who can read it can call every tool; anyone who can write
	// it (or its directory) can make the CLI send the token they chose.
	f, err := ondisk.OpenChecked(path, ondisk.NotReadable)
	var exposed *ondisk.ExposedError
	switch {
	case errors.As(err, &exposed):
		return "", fmt.Errorf("token file %w", err)
	case err != nil:
		return "", fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
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

// writeTokenFile writes a new random token to path (mode 0600, its
// directory 0700 if created). The file appears whole or not at all: it is
// written under another name and renamed into place, so a client reading
// it meanwhile reads the old token or the new one.
func writeTokenFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the token's directory: %w", err)
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("generate a token: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(raw)
	if err := ondisk.WritePrivate(path, []byte(tok+"\n")); err != nil {
		return fmt.Errorf("write the token file: %w", err)
	}
	return nil
}
