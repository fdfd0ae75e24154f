package intake

import (
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// trustSetup is what the config actor needs to apply trust: the resolved
// paths that need approval and the store that holds the approvals.
type trustSetup struct {
	needApproval map[string]bool
	store        string // absolute; "" when there is none
}

func newTrustSetup(d *Deps) trustSetup {
	if len(d.NeedApproval) == 0 {
		return trustSetup{}
	}
	return trustSetup{needApproval: d.NeedApproval, store: d.TrustFile}
}

// policy reads the approvals, which is I/O: it runs on the config actor's
// read goroutine, never in Receive. nil means every file is trusted. A
// store that cannot be used approves nothing (Load reports it).
func (t trustSetup) policy() *config.TrustPolicy {
	if t.needApproval == nil {
		return nil
	}
	p := &config.TrustPolicy{NeedApproval: t.needApproval, Store: t.store}
	if t.store != "" {
		p.Approvals, p.StoreErr = ondisk.ReadApprovals(t.store)
	}
	return p
}

// warnUntrusted logs each project file whose servers are held back, with
// the command that approves it. It is a warning because `serve`, launched
// by an editor, shows nothing else: the log is where its user looks.
func warnUntrusted(log *zap.Logger, invalid []messages.InvalidServer) {
	held := map[string]int{}
	for _, inv := range invalid {
		if inv.EntryState() == messages.StateUntrusted {
			held[inv.Source.Path]++
		}
	}
	for _, path := range slices.Sorted(maps.Keys(held)) {
		log.Warn("project config file not approved: its servers do not run",
			zap.String("file", path), zap.Int("servers", held[path]), zap.String("approve", config.TrustHint(path)))
	}
}
