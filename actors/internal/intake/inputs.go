package intake

import (
	"os"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
)

// inputsFor is the lookup a config read gives config.Load: the values
// of the store at path, read now (on the read goroutine). An unusable
// store answers nothing, and its error is logged by the caller.
func inputsFor(path string) (func(string) (string, bool), error) {
	if path == "" {
		return nil, nil
	}
	vals, err := ondisk.ReadInputs(path)
	if err != nil {
		return nil, err
	}
	return func(id string) (string, bool) { v, ok := vals[id]; return v, ok }, nil
}

// watchedInputs adds the input store to the paths the watcher follows, so
// that `mcpvisor input set` starts what waited for the value.
func watchedInputs(store string, paths []string) []string {
	if store == "" {
		return paths
	}
	return append(paths[:len(paths):len(paths)], store)
}

// fileExists answers config.LoadOptions.FileExists; it runs on the
// config read's goroutine.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
