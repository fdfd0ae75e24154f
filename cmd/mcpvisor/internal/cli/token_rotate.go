package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// rotatedToken is the default token file's token for a daemon that
// starts: a fresh one, written at this start, unless another live daemon
// (a `run` and a `serve --transport http` share the file) uses the
// current one, which is then shared.
//
// Why: a token reused across restarts lets whoever collected it once (a
// user squatting the API's port while the daemon was down, P1) use it
// against every later daemon. Why not always: the daemons already
// running would then refuse their clients, who read the file.
//
// How: every live daemon holds a shared flock on PATH.lock for its whole
// life (the returned token's hold). A starting daemon that gets the lock
// exclusively knows nobody uses the token and writes a new one; it then
// takes the lock shared (a conversion that may briefly drop it, so the
// token is read after, under the shared lock: if another daemon rotated
// in between, both end up with its token). The kernel drops the lock when
// a daemon exits, however it exits.
func rotatedToken(path string) (apiToken, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return apiToken{}, fmt.Errorf("create the token's directory: %w", err)
	}
	hold, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return apiToken{}, fmt.Errorf("token file lock: %w", err)
	}
	tok, err := rotateUnderLock(hold, path)
	if err != nil {
		hold.Close()
		return apiToken{}, err
	}
	return apiToken{value: tok, from: path, hold: hold}, nil
}

func rotateUnderLock(hold *os.File, path string) (string, error) {
	switch err := lockExclusiveNow(hold); {
	case err == nil:
		if err := writeTokenFile(path); err != nil {
			return "", err
		}
	case errors.Is(err, errLockHeld): // another daemon uses the token
	default:
		return "", fmt.Errorf("token file lock %s.lock: %w", path, err)
	}
	if err := lockShared(hold); err != nil {
		return "", fmt.Errorf("token file lock %s.lock: %w", path, err)
	}
	tok, err := readTokenFile(path)
	if errors.Is(err, os.ErrNotExist) { // deleted under a live daemon, or no flock here
		if err = writeTokenFile(path); err == nil {
			tok, err = readTokenFile(path)
		}
	}
	if err == nil {
		err = checkTokenLength(tok, path)
	}
	return tok, err
}
