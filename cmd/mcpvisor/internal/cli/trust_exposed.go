package cli

import (
	"fmt"
	"io"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// printExposedSecrets warns, under a file's preview, about each
// secret-looking variable an entry expands into a command line (args,
// command, headersHelper), which every local user can read through ps
// once the server runs: approving as it is would publish it. check gives
// the same warnings, for approved entries, as diagnostics.
func printExposedSecrets(w io.Writer, path string, data []byte) {
	exposed := config.ExposedSecrets(path, data)
	for _, x := range exposed {
		fmt.Fprintf(w, "warning: %s:%d:%d: server %s: %s\n", x.Position.Path, x.Position.Line, x.Position.Column, quoteIfNeeded(x.Server), x.Message())
	}
	if len(exposed) > 0 {
		fmt.Fprintln(w)
	}
}
