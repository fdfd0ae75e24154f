package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// apiSocketName is the Unix socket `mcpvisor run` serves its API on, next
// to its TCP address, when it listens on the default address: the CLI
// prefers it, because only its owner can reach it (P1: a TCP port can be
// squatted by any local user while the daemon is down; a socket in a
// directory of the user's alone cannot).
const apiSocketName = "api.sock"

// apiSocketPath is $XDG_RUNTIME_DIR/mcpvisor/api.sock, else (no absolute
// XDG_RUNTIME_DIR, as on macOS) api.sock in the token's directory,
// $XDG_STATE_HOME/mcpvisor or ~/.local/state/mcpvisor. Both directories
// are the user's alone (0700).
func apiSocketPath(lookup func(string) (string, bool)) (string, error) {
	if v, _ := lookup("XDG_RUNTIME_DIR"); filepath.IsAbs(v) {
		return filepath.Join(v, "mcpvisor", apiSocketName), nil
	}
	token, err := defaultTokenPath(lookup)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(token), apiSocketName), nil
}

// listenAPISocket makes the daemon's Unix socket: its directory 0700 (made
// if missing, refused if another user's or open to others), a stale
// socket of a daemon that died replaced (the caller holds the default TCP
// address, so no live daemon of this user serves it), the socket 0600.
func listenAPISocket(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("API socket directory: %w", err)
	}
	if err := ondisk.CheckPrivateDir(dir); err != nil {
		return nil, err
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket: remove it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale API socket: %w", err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("API socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("API socket: %w", err)
	}
	return ln, nil
}
