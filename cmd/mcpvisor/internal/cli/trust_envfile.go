package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// envFileOptions are how `mcpvisor trust` parses approved entries to read
// their envFiles: as run expands them by default (your environment, home
// directory and stored inputs, the default workspace folder), so that the
// envFile it records is the one run reads. Run with another --workspace,
// an entry whose envFile path depends on it reads another file and waits
// for a new approval.
func envFileOptions(io IO, wd string) config.LoadOptions {
	lookup := func(k string) (string, bool) { return lookupEnv(io, k) }
	opts := config.LoadOptions{LookupEnv: io.LookupEnv, Home: homeDir(lookup), FileExists: fileExists, ReadFile: ondisk.ReadEnvFile, ProjectDir: wd}
	if store, err := ondisk.ReadInputs(inputStorePath(lookup)); err == nil {
		opts.Inputs = store
	}
	return opts
}

// envFileChanges says which envFiles of an approved file, unchanged as
// written, changed since approval, as "changed since approval: envFile
// .env (server node)"; "" when none did.
func envFileChanges(f config.FileContent, a config.FileApproval, opts config.LoadOptions) string {
	policy := &config.TrustPolicy{
		NeedApproval: map[string]bool{f.Path: true},
		Approvals:    config.Approvals{Files: map[string]config.FileApproval{f.Path: a}},
	}
	d := config.DecideTrust([]config.FileContent{f}, policy)[0]
	policy.JudgeEnvFiles(&d, f.Data, opts)
	servers := map[string][]string{} // why → entry names
	for _, e := range d.Entries {
		if !e.Trusted {
			servers[e.Why] = append(servers[e.Why], quoteIfNeeded(e.Name))
		}
	}
	var out []string
	for _, why := range sortedKeys(servers) {
		names := servers[why]
		what := "server"
		if len(names) > 1 {
			what = "servers"
		}
		slices.Sort(names)
		out = append(out, fmt.Sprintf("%s (%s %s)", why, what, strings.Join(names, ", ")))
	}
	return strings.Join(out, "; ")
}
