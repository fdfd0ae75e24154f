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

// fileExists answers config.LoadOptions.FileExists; it runs on the
// config read's goroutine.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
