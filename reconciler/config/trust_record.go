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
	Entries map[string]string `json:"entries"`
	// EnvFiles maps each approved entry that names an envFile to what it
	// read at approval: the file's absolute path and the SHA-256 of its
	// content ("" when it could not be read: it was missing). The envFile
	// is part of what was approved: an entry whose envFile reads otherwise
	// now is untrusted (see TrustPolicy).
	EnvFiles   map[string]map[string]string `json:"envFiles,omitempty"`
	ApprovedAt time.Time                    `json:"approvedAt"`
}

// approvalsVersion is the store's format version; a store of another
// version is refused rather than misread. Version 1 recorded no envFile:
// it is read as it is, and an entry it approved that names an envFile
// counts as changed (its envFile was never approved), so it waits for a
// new approval; it is not migrated, since that would approve whatever the
// envFile holds at upgrade time. Version 2 is written, which an older
// mcpvisor refuses rather than running envFiles unchecked.
const approvalsVersion = 2

// approvalsVersionNoEnvFiles is the oldest version still read.
const approvalsVersionNoEnvFiles = 1

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
	if f.Version != approvalsVersion && f.Version != approvalsVersionNoEnvFiles {
		return Approvals{}, fmt.Errorf("trust store has version %d; this mcpvisor reads versions %d and %d",
			f.Version, approvalsVersionNoEnvFiles, approvalsVersion)
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
// unchanged ones are still trusted, and so is what each entry's envFile
// held (f.EnvFiles, which the caller fills with EnvFilesRead).
func (a Approvals) Approve(f FileTrust, now time.Time) Approvals {
	entries := make(map[string]string, len(f.Entries))
	var envFiles map[string]map[string]string
	for _, e := range f.Entries {
		entries[e.Name] = e.Hash
		if read := f.EnvFiles[e.Name]; len(read) > 0 {
			if envFiles == nil {
				envFiles = make(map[string]map[string]string)
			}
			envFiles[e.Name] = maps.Clone(read)
		}
	}
	out := Approvals{Files: maps.Clone(a.Files)}
	if out.Files == nil {
		out.Files = make(map[string]FileApproval, 1)
	}
	out.Files[f.Path] = FileApproval{SHA256: f.SHA256, Entries: entries, EnvFiles: envFiles, ApprovedAt: now.UTC()}
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
