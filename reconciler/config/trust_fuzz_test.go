package config_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// FuzzTrust: whatever a project file holds, with nothing approved Load
// looks up no variable and runs nothing from it; once what DecideTrust
// saw is approved, Load holds back no entry it found (the two walk the
// file alike), duplicates aside, and looks up no variable the preview did
// not list (T1: the preview must show everything an approval lets read).
func FuzzTrust(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	const path = "/fuzz/.mcp.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		asked := 0
		lookup := func(string) (string, bool) { asked++; return "v", true }
		none := &config.TrustPolicy{NeedApproval: map[string]bool{path: true}}
		files := []config.FileContent{{Path: path, Data: data}}
		cfg, _ := config.Load(files, config.LoadOptions{LookupEnv: lookup, Home: "/home/fuzz", Trust: none}, nil)
		if asked != 0 || len(cfg.Servers) != 0 {
			t.Fatalf("unapproved: %d lookups, servers %+v", asked, cfg.Servers)
		}
		for _, inv := range cfg.Invalid {
			if inv.State != messages.StateUntrusted {
				t.Fatalf("unapproved entry parsed: %+v", inv)
			}
		}

		d := config.DecideTrust(files, none)
		approved := &config.TrustPolicy{NeedApproval: none.NeedApproval, Approvals: config.Approvals{}.Approve(d[0], approvedAt)}
		dups := map[string]bool{}
		for _, e := range config.DecideTrust(files, approved)[0].Entries {
			dups[e.Name] = !e.Trusted
			if !e.Trusted && e.Why != "the entry is declared more than once" {
				t.Fatalf("DecideTrust: approved entry %q untrusted: %s", e.Name, e.Why)
			}
		}
		looked := map[string]bool{}
		record := func(name string) (string, bool) { looked[name] = true; return "v", true }
		cfg, _ = config.Load(files, config.LoadOptions{LookupEnv: record, Home: "/home/fuzz", Trust: approved}, nil)
		previews, _ := config.PreviewEntries(path, data, config.PreviewOptions{})
		listed := map[string]bool{}
		for _, p := range previews {
			for _, v := range p.Variables {
				listed[v] = true
			}
			for _, id := range p.Inputs {
				listed[config.InputEnvName(id)] = true
			}
			for _, l := range p.Lines {
				if strings.ContainsFunc(l.Label+l.Text, func(r rune) bool { return !unicode.IsPrint(r) }) {
					t.Fatalf("preview line %q holds a rune a terminal would not show as itself", l.Label+": "+l.Text)
				}
			}
		}
		for name := range looked {
			if !listed[name] {
				t.Fatalf("the approved file reads %s, which its preview does not list", name)
			}
		}
		for _, inv := range cfg.Invalid {
			if inv.State == messages.StateUntrusted && !dups[inv.Name] {
				t.Fatalf("approved entry %q still untrusted: %s", inv.Name, inv.Reason)
			}
		}
	})
}
