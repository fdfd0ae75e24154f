package intake

import (
	"os"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// inputsFor is what a config read gives config.Load: the values of the
// store at path, read now (on the read goroutine); Load gives each file
// only its scope's. An unusable store answers nothing, and its error is
// logged by the caller.
func inputsFor(path string) (config.InputStore, error) {
	if path == "" {
		return config.InputStore{}, nil
	}
	return ondisk.ReadInputs(path)
}

// fileExists answers config.LoadOptions.FileExists; it runs on the
// config read's goroutine.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
