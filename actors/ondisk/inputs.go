package ondisk

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// The input store holds the values of VS Code inputs (${input:ID}) that
// `mcpvisor input set` stored for this user: one JSON file,
// {"version": 1, "inputs": {"ID": "value"}}, next to the trust store. The
// values may be secrets (password inputs), so the store is private: the
// directory is created 0700, the file written 0600 atomically, and a
// store that other users can read or write is refused. Writers serialise
// on a lock file next to it, as the trust store's do.

// inputStoreVersion is the store's format version.
const inputStoreVersion = 1

type inputStoreFile struct {
	Version int               `json:"version"`
	Inputs  map[string]string `json:"inputs"`
}

// ReadInputs reads the input store at path. A store that does not exist
// holds no values and is not an error.
func ReadInputs(path string) (map[string]string, error) {
	fc := readConfigFile(path)
	switch {
	case fc.Missing:
		return map[string]string{}, nil
	case fc.ReadErr != nil:
		return nil, fc.ReadErr
	}
	if err := CheckFile(path, nil, NotReadable); err != nil {
		return nil, fmt.Errorf("input store %w", err)
	}
	var f inputStoreFile
	if err := json.Unmarshal(fc.Data, &f); err != nil {
		// The error of encoding/json may quote the file's bytes, which
		// are values: say only that it does not parse.
		return nil, fmt.Errorf("input store %s is not valid JSON: fix or remove it", path)
	}
	if f.Version != inputStoreVersion {
		return nil, fmt.Errorf("input store %s has version %d, want %d", path, f.Version, inputStoreVersion)
	}
	if f.Inputs == nil {
		f.Inputs = map[string]string{}
	}
	return f.Inputs, nil
}

// UpdateInputs changes the input store at path: it reads it, applies
// change to the values, and writes the result atomically with mode 0600,
// creating the directory (0700) if needed.
func UpdateInputs(path string, change func(map[string]string)) error {
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
	change(cur)
	data, err := json.MarshalIndent(inputStoreFile{Version: inputStoreVersion, Inputs: cur}, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'))
}

// InputIDs lists the ids the store at path has values for, sorted; never
// the values.
func InputIDs(path string) ([]string, error) {
	vals, err := ReadInputs(path)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(vals))
	for id := range vals {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}
