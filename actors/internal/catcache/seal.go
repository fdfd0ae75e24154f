package catcache

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// Each entry is sealed with a key only the user can read: an HMAC-SHA256
// of the entry's bytes, under a random key in keyFile (0600, in the
// cache's own 0700 directory). An entry's Key (a hash of the server's
// fingerprint) is computable by anyone who can read the config; without
// the seal, whoever could write one file in the cache directory could
// have the next start show the tool descriptions they chose. An entry
// whose seal does not verify is ignored.

// keyFile is the sealing key's file in the cache directory: a dot file,
// so never taken for an entry.
const keyFile = ".key"

// keyBytes is the sealing key's size.
const keyBytes = 32

// errBadSeal: an entry not sealed with this user's key.
var errBadSeal = errors.New("not sealed with this user's cache key (written by someone else, or by another key)")

// sealedEntry is an entry file: the entry's bytes and their HMAC.
type sealedEntry struct {
	Version int             `json:"version"`
	MAC     string          `json:"mac"`
	Entry   json.RawMessage `json:"entry"`
}

// seal is the file holding entry's JSON data, sealed with key. It is
// written out by hand, so that the entry's bytes on disk are exactly the
// ones the MAC covers.
func seal(key, data []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":%d,"mac":%q,"entry":`, cacheVersion, hex.EncodeToString(mac(key, data)))
	b.Write(data)
	b.WriteString("}")
	return b.Bytes()
}

// unseal returns the entry data of file, if key sealed it.
func unseal(key, file []byte) ([]byte, error) {
	var s sealedEntry
	if err := json.Unmarshal(file, &s); err != nil {
		return nil, err
	}
	if s.Version != cacheVersion {
		return nil, errForeignEntry
	}
	got, err := hex.DecodeString(s.MAC)
	if err != nil || !hmac.Equal(got, mac(key, s.Entry)) {
		return nil, errBadSeal
	}
	return s.Entry, nil
}

func mac(key, data []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(data)
	return h.Sum(nil)
}

// readOrCreateKey is the sealing key in dir, made (random) if there is
// none. Like every file mcpvisor reads back, the key file must be the
// user's and closed to others (ondisk.CheckFile).
func readOrCreateKey(dir string) ([]byte, error) {
	key, err := readKey(filepath.Join(dir, keyFile))
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return createKey(dir)
}

func readKey(path string) ([]byte, error) {
	f, err := ondisk.OpenChecked(path, ondisk.NotReadable)
	var exposed *ondisk.ExposedError
	if errors.As(err, &exposed) {
		return nil, fmt.Errorf("catalog cache key %w", err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, 2*keyBytes+1))
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(string(text))
	if err != nil || len(key) != keyBytes {
		return nil, fmt.Errorf("catalog cache key %s is damaged: remove it (the cache starts anew)", path)
	}
	return key, nil
}

// createKey writes a new key to dir's key file. It appears whole or not
// at all (written under another name and linked into place): of two
// processes that start at once, both use the one that won.
func createKey(dir string) ([]byte, error) {
	key := make([]byte, keyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".key-*.tmp") // mode 0600
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(hex.EncodeToString(key))
	if err := errors.Join(werr, tmp.Close()); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, keyFile)
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readKey(path)
	} else if err != nil {
		return nil, err
	}
	return key, nil
}
