package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// checkTrustPolicy judges files as `run` without --config would: the
// project files of workdir need approval, and the trust store says what
// was approved. A store that cannot be used approves nothing.
func checkTrustPolicy(workdir, home string, lookup func(string) (string, bool)) *config.TrustPolicy {
	p := &config.TrustPolicy{NeedApproval: map[string]bool{}, Store: trustStorePath(lookup)}
	for _, path := range projectPaths(slices.Concat(projectDefaults, userDefaults), workdir, home) {
		p.NeedApproval[path] = true
	}
	p.Approvals, p.StoreErr = ondisk.ReadApprovals(p.Store)
	return p
}

// printUntrustedFiles ends check's report with one line per file whose
// entries are untrusted.
func printUntrustedFiles(w io.Writer, invalid []messages.InvalidServer) {
	count := map[string]int{}
	for _, inv := range invalid {
		if inv.EntryState() == messages.StateUntrusted {
			count[inv.Source.Path]++
		}
	}
	for _, path := range sortedKeys(count) {
		fmt.Fprintf(w, "%s: untrusted: %s do not run until approved; review and approve: %s\n",
			path, plural(count[path], "server"), config.TrustHint(path))
	}
}
