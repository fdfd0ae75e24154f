package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"time"
)

// Approvals are the user's approvals of project config files, as the trust
// store (trust.json in the user's config directory) holds them. This file
// only encodes and decodes them: the actors and the CLI do the I/O.
type Approvals struct {
	// Files maps a file's absolute, clean path to its approval.
	Files map[string]FileApproval `json:"files"`
}

// FileApproval is the approval of one file's content.
type FileApproval struct {
	// SHA256 is the hex digest of the whole content approved.
	SHA256 string `json:"sha256"`
	// Entries maps each approved entry's name to its hash (see EntryTrust).
	Entries    map[string]string `json:"entries"`
	ApprovedAt time.Time         `json:"approvedAt"`
}

// approvalsVersion is the store's format version; a store of another
// version is refused rather than misread.
const approvalsVersion = 1

type approvalsFile struct {
	Version int                     `json:"version"`
	Files   map[string]FileApproval `json:"files"`
}

// ParseApprovals decodes a trust store. Empty data is an empty store (a
// file that does not exist yet).
func ParseApprovals(data []byte) (Approvals, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Approvals{}, nil
	}
	var f approvalsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Approvals{}, fmt.Errorf("trust store is not valid: %w", err)
	}
	if f.Version != approvalsVersion {
		return Approvals{}, fmt.Errorf("trust store has version %d; this mcpvisor reads version %d", f.Version, approvalsVersion)
	}
	return Approvals{Files: f.Files}, nil
}

// Marshal encodes the store, indented, with a trailing newline.
func (a Approvals) Marshal() []byte {
	files := a.Files
	if files == nil {
		files = map[string]FileApproval{}
	}
	data, err := json.MarshalIndent(approvalsFile{Version: approvalsVersion, Files: files}, "", "  ")
	if err != nil {
		panic(err) // strings, maps of strings and times always encode
	}
	return append(data, '\n')
}

// Approve returns a with f's content, as decided, approved at now. Every
// entry of the content is recorded, so that after a later change the
// unchanged ones are still trusted.
func (a Approvals) Approve(f FileTrust, now time.Time) Approvals {
	entries := make(map[string]string, len(f.Entries))
	for _, e := range f.Entries {
		entries[e.Name] = e.Hash
	}
	out := Approvals{Files: maps.Clone(a.Files)}
	if out.Files == nil {
		out.Files = make(map[string]FileApproval, 1)
	}
	out.Files[f.Path] = FileApproval{SHA256: f.SHA256, Entries: entries, ApprovedAt: now.UTC()}
	return out
}

// Revoke returns a without path's approval, and whether it had one.
func (a Approvals) Revoke(path string) (Approvals, bool) {
	if _, ok := a.Files[path]; !ok {
		return a, false
	}
	out := Approvals{Files: maps.Clone(a.Files)}
	delete(out.Files, path)
	return out, true
}
