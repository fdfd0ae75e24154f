package config

import (
	"github.com/mcpvisor/mcpvisor/messages"
)

// MaxConfigBytes is the largest config file mcpvisor reads. The config actor
// enforces it while reading (this package does no I/O) and reports a larger
// file through FileContent.ReadErr.
const MaxConfigBytes = 4 << 20

// LookupEnv reports a variable's value; ok=false means unset. It is injected
// so that parsing is a pure function of its inputs and tests never touch the
// process environment. A nil LookupEnv treats every variable as unset.
type LookupEnv func(name string) (value string, ok bool)

// LoadOptions carries what parsing needs from the outside world.
type LoadOptions struct {
	// LookupEnv resolves ${VAR}, ${VAR:-default} and ${env:VAR}.
	LookupEnv LookupEnv
	// Home replaces a leading ~ in command and cwd. When it is empty such an
	// entry is invalid rather than silently relative.
	Home string
	// Inputs are the values of VS Code inputs that `mcpvisor input set`
	// stored; each file reads only its scope's (see InputScopeOf).
	// MCPVISOR_INPUT_<ID> in LookupEnv comes first.
	Inputs InputStore
	// asProjectFile makes the file read its project's inputs, as a file
	// that needs approval does, though no trust policy is given (every
	// entry parsed: EnvFilesRead).
	asProjectFile bool
	// ProjectDir is the project mcpvisor runs for: Claude Code's
	// ~/.claude.json keeps servers per project directory, and those of
	// ProjectDir are read too ("" reads none).
	ProjectDir string
	// ReadFile reads an entry's envFile; nil makes an envFile an error.
	// Injected, like LookupEnv, so parsing stays pure.
	ReadFile func(path string) ([]byte, error)
	// FileExists, when set, tells whether a path names a file; it lets
	// the parser warn about a command that holds its arguments ("node
	// index.js"). Injected, like LookupEnv, so parsing stays pure.
	FileExists func(path string) bool
	// Commands, when set, makes the parser say whether each stdio server's
	// command will be found when mcpvisor starts it (see command_path.go).
	// `mcpvisor check` sets it; the running supervisor does not, since a
	// command installed later must start without an edit of the file.
	Commands *CommandCheck
	// Workspace overrides the workspace folder of ${workspaceFolder}
	// (default: the folder holding .vscode/ for a .vscode/mcp.json, else
	// the config file's folder).
	Workspace string
	// Trust, when set, holds back the entries of project files that the
	// user has not approved (see TrustPolicy); nil trusts every file.
	Trust *TrustPolicy
}

// CommandCheck is what judging a command needs from the outside world.
type CommandCheck struct {
	// Executable tells whether a path names an executable file.
	Executable func(path string) bool
	// WorkingDir is the directory a relative command of an entry without
	// cwd resolves against: that of whoever runs mcpvisor, here the
	// checker.
	WorkingDir string
}

// FileContent is one configured file as the config actor read it: the actor
// does the I/O, this package only looks at the bytes.
type FileContent struct {
	// Path is absolute and already resolved (see ResolvePaths).
	Path string
	Data []byte
	// Missing means the file does not exist: no servers from it, and no
	// diagnostic, because a listed file that is absent is normal (a project
	// without a .mcp.json).
	Missing bool
	// ReadErr means the file exists but could not be read: it is a
	// directory, permission was denied, or it is larger than MaxConfigBytes.
	// It is an error diagnostic for that file only.
	ReadErr error
}

// ParsedFile is the result of parsing one file.
type ParsedFile struct {
	Path string
	// OK reports that the file as a whole was usable: it parsed as JSONC and
	// its top-level shape was right. Individual entries may still be invalid.
	// When OK is false, Servers and Invalid are empty and Diagnostics says why.
	OK bool
	// Servers are the valid entries, disabled ones included, sorted by name,
	// each with its Fingerprint set.
	Servers []messages.ServerSpec
	// Invalid are the entries that cannot run, sorted by name.
	Invalid []messages.InvalidServer
	// Diagnostics are sorted by line and column.
	Diagnostics []messages.Diagnostic
	// Notes say what was done quietly (fields of other tools ignored or
	// mapped), for check --verbose; sorted like Diagnostics.
	Notes []messages.Diagnostic
	// EntryHashes holds, for a file that needs approval, the hash of each
	// trusted entry as written, so that a read falling back on this parse
	// can tell whether they are still approved; nil for other files.
	EntryHashes map[string]string
	// EnvFiles holds, for each parsed entry that names an envFile, the
	// file's absolute path and the SHA-256 of what was read ("" when it
	// could not be read), so that trust can tell whether it is still the
	// approved one, now or when a read falls back on this parse.
	EnvFiles map[string]map[string]string
}

// Loaded is the merged desired state of all configured files, as Load
// found it.
type Loaded struct {
	// Servers holds every valid entry that won its name, disabled ones
	// included, sorted by name, each with its Fingerprint set.
	Servers []messages.ServerSpec
	// Invalid holds the entries that won their name but cannot run, sorted
	// by name. A name appears in Servers or in Invalid, never in both.
	Invalid []messages.InvalidServer
	// Diagnostics holds every error and warning of every file, sorted by
	// path, line and column.
	Diagnostics []messages.Diagnostic
	// Notes holds the notes of every file read (see ParsedFile.Notes).
	Notes []messages.Diagnostic
	// EnvFiles are the envFiles the parsed entries read, sorted: a
	// caller that watches the config files watches them too, so that an
	// edit of one alone applies (and is judged against its approval) at
	// once. SameDesired ignores them.
	EnvFiles []string
}
