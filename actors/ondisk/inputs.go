package ondisk

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// The input store holds the values of VS Code inputs (${input:ID}) that
// `mcpvisor input set` stored for this user, each in a scope (see
// config.InputStore: a project file reads only its project's values): one
// JSON file next to the trust store. The values may be secrets (password
// inputs), so the store is private: the directory is created 0700, the
// file written 0600 atomically, and a store that other users can read or
// write is refused. Writers serialise on a lock file next to it, as the
// trust store's do.

// ReadInputs reads the input store at path. A store that does not exist
// holds no values and is not an error; one of version 1 (ids alone) is
// read as the user's scope.
func ReadInputs(path string) (config.InputStore, error) {
	fc := readStore(path, "input store", NotReadable)
	switch {
	case fc.Missing:
		return config.InputStore{}, nil
	case fc.ReadErr != nil:
		return config.InputStore{}, fc.ReadErr
	}
	store, err := config.ParseInputStore(fc.Data)
	if err != nil {
		return config.InputStore{}, fmt.Errorf("input store %s %w: fix or remove it", path, err)
	}
	return store, nil
}

// UpdateInputs changes the input store at path: it reads it, applies
// change to the values of scope, and writes the result atomically with
// mode 0600, creating the directory (0700) if needed.
func UpdateInputs(path string, scope config.InputScope, change func(map[string]string)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("input store directory: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := ReadInputs(path)
	if err != nil {
		return err
	}
	change(cur.Values(scope))
	if err := WritePrivate(path, cur.Marshal()); err != nil {
		return fmt.Errorf("write input store: %w", err)
	}
	return nil
}

// InputIDs lists the ids the store at path has values for in scope,
// sorted; never the values.
func InputIDs(path string, scope config.InputScope) ([]string, error) {
	store, err := ReadInputs(path)
	if err != nil {
		return nil, err
	}
	return store.IDs(scope), nil
}
