package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// An approval covers what an entry pulls in, not only its text: an
// envFile's variables (NODE_OPTIONS, say) are as good as a command line.
// The approval records the SHA-256 of each entry's envFile as it was
// then (FileApproval.EnvFiles); the parser hashes the envFile it reads
// (entryParser.envFile) and an entry trusted by its text whose envFile
// reads otherwise now (changed, removed, or appeared) becomes untrusted
// with "changed since approval: envFile PATH" before any of its values is
// used, as does one whose approval recorded no envFile (a version 1
// store).

// untrustedEnvFile is why an entry is untrusted when its envFile is not
// the approved one.
const untrustedEnvFile = "changed since approval: envFile "

// recordEnvFile notes that the entry read the envFile at path: its hash,
// or "" when it could not be read.
func (e *entryParser) recordEnvFile(path string, data []byte, err error) {
	hash := ""
	if err == nil {
		hash = ContentHash(data)
	}
	if e.envFiles == nil {
		e.envFiles = make(map[string]string, 1)
	}
	e.envFiles[path] = hash
}

// envFileUntrusted decides a parsed entry of a file that needs approval by
// the envFiles it read; it returns why it is untrusted, or "".
func (p *fileParser) envFileUntrusted(e *entryParser) string {
	if len(e.envFiles) == 0 {
		return ""
	}
	if p.out.EnvFiles == nil {
		p.out.EnvFiles = make(map[string]map[string]string)
	}
	p.out.EnvFiles[e.name] = e.envFiles
	_, why := p.opts.Trust.judgeEnvFiles(p.path, e.name, e.envFiles)
	return why
}

// judgeEnvFiles decides an entry of path trusted by its text by the
// envFiles it read (path → hash): each must be recorded in the approval
// with the same hash. An entry that read none is trusted.
func (p *TrustPolicy) judgeEnvFiles(path, name string, read map[string]string) (trusted bool, why string) {
	if !p.needsApproval(path) || len(read) == 0 {
		return true, ""
	}
	approved := p.Approvals.Files[path].EnvFiles[name]
	for _, f := range slices.Sorted(maps.Keys(read)) {
		if h, ok := approved[f]; !ok || h != read[f] {
			return false, untrustedEnvFile + envFileLabel(path, f)
		}
	}
	return true, ""
}

// envFileLabel names an envFile in a reason: relative to the folder of the
// config file that names it (the parent of .vscode/), where relative
// envFiles resolve by default, else absolute; quoted when it holds
// anything but plain characters, since the file's author chose it.
func envFileLabel(configPath, envFile string) string {
	dir := defaultWorkspace(configPath)
	label := envFile
	if rel, err := filepath.Rel(dir, envFile); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		label = rel
	}
	for _, c := range label {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.Quote(label)
		}
	}
	return label
}

// EnvFilesRead parses the file at path, every entry trusted, and returns
// what each entry's envFile holds now, by entry name (see
// FileApproval.EnvFiles): what approving the file records, in
// FileTrust.EnvFiles. It reads through opts.ReadFile and looks variables
// up, so call it only for a file the user approves; the file reads the
// inputs of its project, as at run time, never the user's own.
func EnvFilesRead(path string, data []byte, opts LoadOptions) map[string]map[string]string {
	opts.Trust, opts.asProjectFile = nil, true
	return ParseFile(path, data, opts).EnvFiles
}

// JudgeEnvFiles completes DecideTrust for one file as Load decides it: an
// entry trusted by its text whose envFile is not the approved one becomes
// untrusted, and then the file is not Approved. Only the entries trusted
// by their text are parsed (through opts, with opts.ReadFile reading the
// envFiles), as Load would.
func (p *TrustPolicy) JudgeEnvFiles(f *FileTrust, data []byte, opts LoadOptions) {
	if !f.Parsed || !p.needsApproval(f.Path) {
		return
	}
	opts.Trust = p
	read := ParseFile(f.Path, data, opts).EnvFiles
	for i := range f.Entries {
		e := &f.Entries[i]
		if !e.Trusted {
			continue
		}
		if ok, why := p.judgeEnvFiles(f.Path, e.Name, read[e.Name]); !ok {
			e.Trusted, e.Why = false, why
			f.Approved = false
		}
	}
}
