package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Trust: a config file that mcpvisor found by itself in a project (the
// working directory's .mcp.json, say) may come from anyone who can write to
// that repository. Its entries run only once the user approved them. An
// approval names the file by its absolute path and records the SHA-256 of
// its content and of each entry, so that after a change the entries that
// are still as approved keep running and the changed or new ones wait for
// a new approval.
//
// An entry that is not trusted is never parsed beyond its name: no
// variable is looked up (a hostile file must not learn whether a secret is
// set, let alone send it somewhere), no field is checked, nothing is
// spawned or contacted, and it never takes its name from a trusted entry.

// TrustPolicy says which files need the user's approval and what the user
// approved. A nil policy, or a file not in NeedApproval, trusts everything:
// files the user named (--config, MCPVISOR_CONFIG) and user-scoped files
// are trusted by that act.
type TrustPolicy struct {
	// NeedApproval holds the absolute, clean paths of the files that
	// mcpvisor found by itself in a project.
	NeedApproval map[string]bool
	// Approvals are the user's approvals, as the store holds them.
	Approvals Approvals
	// Store is the store's path and StoreErr why it could not be used
	// (then Approvals is empty: nothing is approved), which Load reports.
	Store    string
	StoreErr error
}

// Why an entry is not trusted.
const (
	untrustedNotApproved = "the file has not been approved"
	untrustedNew         = "the entry is new since the file was approved"
	untrustedChanged     = "the entry changed since the file was approved"
	untrustedDuplicate   = "the entry is declared more than once"
)

// FileTrust is the trust decision for one file.
type FileTrust struct {
	Path string
	// NeedsApproval: the file was found in a project; its entries run only
	// as approved. When false every entry is trusted.
	NeedsApproval bool
	// Missing: the file does not exist.
	Missing bool
	// Parsed: its entries could be found (it is readable JSONC of the right
	// shape). When false Entries is empty.
	Parsed bool
	// SHA256 is the hex digest of the content as read ("" when missing or
	// unreadable).
	SHA256 string
	// Recorded: the user approved some content of this path. Approved: the
	// content as it is now.
	Recorded, Approved bool
	// Entries are the file's entries, sorted by name.
	Entries []EntryTrust
	// EnvFiles are what each entry's envFile holds now, by entry name
	// (see FileApproval.EnvFiles): what Approve records. DecideTrust
	// leaves it empty (it reads no envFile); fill it with EnvFilesRead.
	EnvFiles map[string]map[string]string
}

// EntryTrust is the trust decision for one entry.
type EntryTrust struct {
	Name   string
	Source messages.Position
	// Hash is the SHA-256 of the entry as written (its name and its value,
	// comments and whitespace aside): what an approval records.
	Hash    string
	Trusted bool
	// Why says why it is not trusted ("" when it is).
	Why string
}

// Untrusted counts the entries that are not trusted.
func (f FileTrust) Untrusted() int {
	n := 0
	for _, e := range f.Entries {
		if !e.Trusted {
			n++
		}
	}
	return n
}

// DecideTrust decides, for each file as read, whether it and each of its
// entries is trusted under policy. It is what the config actor applies
// while parsing (see LoadOptions.Trust), shown as a table: `mcpvisor
// trust` and `mcpvisor check` print it.
func DecideTrust(files []FileContent, policy *TrustPolicy) []FileTrust {
	out := make([]FileTrust, 0, len(files))
	for _, f := range files {
		path := f.Path
		ft := FileTrust{Path: path, NeedsApproval: policy.needsApproval(path), Missing: f.Missing}
		if policy != nil {
			_, ft.Recorded = policy.Approvals.Files[path]
		}
		if f.Missing || f.ReadErr != nil {
			out = append(out, ft)
			continue
		}
		ft.SHA256 = ContentHash(f.Data)
		ft.Approved = ft.Recorded && policy.Approvals.Files[path].SHA256 == ft.SHA256
		entries, ok := rawEntries(path, f.Data)
		ft.Parsed = ok
		count := make(map[string]int, len(entries))
		for _, e := range entries {
			count[e.name]++
		}
		for _, e := range entries {
			if count[e.name] == 0 {
				continue // a duplicate already listed
			}
			dup := count[e.name] > 1
			count[e.name] = 0
			trusted, why := policy.judge(path, e.name, e.hash, dup)
			ft.Entries = append(ft.Entries, EntryTrust{Name: e.name, Source: e.source, Hash: e.hash, Trusted: trusted, Why: why})
		}
		slices.SortFunc(ft.Entries, func(a, b EntryTrust) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, ft)
	}
	return out
}

// ContentHash is the hex SHA-256 of a file's content, as approvals record it.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// storeDiagnostics reports a trust store that could not be used.
func (p *TrustPolicy) storeDiagnostics() []messages.Diagnostic {
	if p == nil || p.StoreErr == nil {
		return nil
	}
	return []messages.Diagnostic{{
		Position: messages.Position{Path: p.Store, Line: 1, Column: 1},
		Severity: messages.SeverityError,
		Message:  "cannot use the trust store: " + oneLine(p.StoreErr.Error()) + "; no project file is approved until it is fixed or removed",
	}}
}

func (p *TrustPolicy) needsApproval(path string) bool {
	return p != nil && p.NeedApproval[path]
}

// judge decides one entry of path, given the hash of the entry as written
// and whether its name is declared more than once in the file. Only the
// entry's own record counts: an entry unchanged since the approval is
// trusted even when the rest of the file changed.
func (p *TrustPolicy) judge(path, name, hash string, dup bool) (trusted bool, why string) {
	if !p.needsApproval(path) {
		return true, ""
	}
	rec, ok := p.Approvals.Files[path]
	switch {
	case !ok:
		return false, untrustedNotApproved
	case dup:
		return false, untrustedDuplicate
	}
	approved, ok := rec.Entries[name]
	switch {
	case !ok:
		return false, untrustedNew
	case approved != hash:
		return false, untrustedChanged
	}
	return true, ""
}

// TrustHint is the command that reviews and approves path, quoted for a
// POSIX shell when it needs to be.
func TrustHint(path string) string {
	return "mcpvisor trust " + ShellQuote(path)
}

// untrustedReason is an untrusted entry's reason, shown as its last error.
func untrustedReason(path, why string) string {
	return fmt.Sprintf("untrusted: %s; nothing runs until you review and approve it: %s", why, TrustHint(path))
}

// ShellQuote quotes s for a POSIX shell unless it is made of characters
// that need no quoting.
func ShellQuote(s string) string {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '@' || c == ',' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
