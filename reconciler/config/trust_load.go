package config

import (
	"fmt"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// How trust enters Load (LoadOptions.Trust):
//
//   - ParseFile asks skipUntrusted about every declared name before it
//     parses the entry: an untrusted entry becomes an InvalidServer with
//     State untrusted and a warning, and none of its fields is read, so no
//     variable is looked up.
//   - Load merges the trusted entries first: an untrusted entry gets a name
//     only if no trusted entry of any file claims it (claimUntrusted).
//   - A parse kept by the last-good rule is judged again under the current
//     approvals (recheck): a revoked approval stops its entries even while
//     the file does not parse.

// skipUntrusted decides one declaration of the file being parsed. It
// records an untrusted entry and returns true, or returns false (and keeps
// the entry's hash, for recheck) when the entry may be parsed.
func (p *fileParser) skipUntrusted(d declaration, dup bool) bool {
	t := p.opts.Trust
	if !t.needsApproval(p.path) {
		return false
	}
	name := d.name.value
	hash := entryHash(name, d.value)
	trusted, why := t.judge(p.path, name, hash, dup)
	if trusted {
		if p.out.EntryHashes == nil {
			p.out.EntryHashes = make(map[string]string)
		}
		p.out.EntryHashes[name] = hash
		return false
	}
	p.untrusted(d, why)
	return true
}

// untrusted records the declaration as an untrusted entry, for why.
func (p *fileParser) untrusted(d declaration, why string) {
	name := d.name.value
	src := p.lines.pos(d.name.start)
	p.out.Invalid = append(p.out.Invalid, untrustedEntry(name, src, why))
	p.diag(d.name.start, messages.SeverityWarning, fmt.Sprintf("server %q is untrusted: %s; it does not run until you review and approve the file: %s",
		name, why, TrustHint(p.path)))
}

func untrustedEntry(name string, src messages.Position, why string) messages.InvalidServer {
	return messages.InvalidServer{Name: name, Source: src, State: messages.StateUntrusted, Reason: untrustedReason(src.Path, why)}
}

// claimUntrusted gives each untrusted entry its name if no trusted entry
// claimed it (winner holds the trusted claims), in file-list order among
// untrusted entries, and reports the others. It returns the entries that
// got their name.
func claimUntrusted(winner map[string]messages.Position, untrusted []messages.InvalidServer, diags *[]messages.Diagnostic) []messages.InvalidServer {
	var out []messages.InvalidServer
	claimed := make(map[string]bool, len(untrusted)) // names claimed by untrusted entries
	for _, u := range untrusted {
		w, taken := winner[u.Name]
		switch {
		case !taken:
			winner[u.Name] = u.Source
			claimed[u.Name] = true
			out = append(out, u)
		case claimed[u.Name]:
			claimShadowed(winner, u.Name, u.Source, diags)
		default:
			*diags = append(*diags, messages.Diagnostic{
				Position: u.Source,
				Severity: messages.SeverityWarning,
				Message: fmt.Sprintf("server %q is untrusted and does not shadow the trusted declaration at %s, which runs instead; "+
					"once this file is approved, the file that comes first in the list wins: rename or remove one of them",
					u.Name, formatPosition(w)),
			})
		}
	}
	return out
}

// recheck judges a parse kept by the last-good rule under the current
// approvals: its entries that are no longer approved become untrusted.
// Entries that were untrusted stay so until the file parses again.
func (p *TrustPolicy) recheck(old ParsedFile) ParsedFile {
	if !p.needsApproval(old.Path) {
		return old
	}
	stillTrusted := func(name string) (bool, string) {
		hash, ok := old.EntryHashes[name]
		if !ok {
			return false, untrustedNotApproved
		}
		if ok, why := p.judge(old.Path, name, hash, false); !ok {
			return false, why
		}
		return p.judgeEnvFiles(old.Path, name, old.EnvFiles[name])
	}
	out := old
	out.Servers, out.Invalid = nil, nil
	for _, s := range old.Servers {
		if ok, why := stillTrusted(s.Name); !ok {
			out.Invalid = append(out.Invalid, untrustedEntry(s.Name, s.Source, why))
			continue
		}
		out.Servers = append(out.Servers, s)
	}
	for _, inv := range old.Invalid {
		if inv.EntryState() == messages.StateInvalid {
			if ok, why := stillTrusted(inv.Name); !ok {
				inv = untrustedEntry(inv.Name, inv.Source, why)
			}
		}
		out.Invalid = append(out.Invalid, inv)
	}
	slices.SortFunc(out.Invalid, func(a, b messages.InvalidServer) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}
