package reconciler_test

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// FuzzTrust: whatever a project file holds, with nothing approved Load
// looks up no variable and runs nothing from it; once what DecideTrust
// saw is approved, Load holds back no entry it found (the two walk the
// file alike), duplicates aside.
func FuzzTrust(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	const path = "/fuzz/.mcp.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		asked := 0
		lookup := func(string) (string, bool) { asked++; return "v", true }
		none := &reconciler.TrustPolicy{NeedApproval: map[string]bool{path: true}}
		files := []reconciler.FileContent{{Path: path, Data: data}}
		cfg, _ := reconciler.Load(files, reconciler.LoadOptions{LookupEnv: lookup, Home: "/home/fuzz", Trust: none}, nil)
		if asked != 0 || len(cfg.Servers) != 0 {
			t.Fatalf("unapproved: %d lookups, servers %+v", asked, cfg.Servers)
		}
		for _, inv := range cfg.Invalid {
			if inv.State != messages.StateUntrusted {
				t.Fatalf("unapproved entry parsed: %+v", inv)
			}
		}

		d := reconciler.DecideTrust(files, none)
		approved := &reconciler.TrustPolicy{NeedApproval: none.NeedApproval, Approvals: reconciler.Approvals{}.Approve(d[0], approvedAt)}
		dups := map[string]bool{}
		for _, e := range reconciler.DecideTrust(files, approved)[0].Entries {
			dups[e.Name] = !e.Trusted
			if !e.Trusted && e.Why != "the entry is declared more than once" {
				t.Fatalf("DecideTrust: approved entry %q untrusted: %s", e.Name, e.Why)
			}
		}
		cfg, _ = reconciler.Load(files, reconciler.LoadOptions{LookupEnv: lookup, Home: "/home/fuzz", Trust: approved}, nil)
		for _, inv := range cfg.Invalid {
			if inv.State == messages.StateUntrusted && !dups[inv.Name] {
				t.Fatalf("approved entry %q still untrusted: %s", inv.Name, inv.Reason)
			}
		}
	})
}
