// Package ondisk reads and writes the files mcpvisor keeps for its user,
// as every part of it must: config files and envFiles (bounded, opened
// without blocking, refusing what is not a regular file, so a FIFO or a
// symlink to /dev/stdin in a cloned repository cannot hang a read), the
// trust store (approvals of project files) and the input store (values
// of VS Code inputs). Both stores are private: created 0700 and 0600,
// written atomically (a temporary file renamed over the old one), their
// writers serialised on a lock file, and a store other users can write
// (the input store: read) is refused.
//
// CheckFile and CheckDir are the one ownership check of every file
// mcpvisor reads back (these stores, the API token, the OAuth tokens,
// the catalog cache): the file and its directory must be the user's, and
// closed to other users' writes (a file holding secrets: reads too).
// OpenChecked opens a file and checks what it opened; CheckPrivateDir is
// the stricter check of a directory nobody else may enter (the API
// socket's); WritePrivate is the one atomic, private write of them all.
//
// The Supervisor reads them on its config actor's read goroutine; the CLI
// (mcpvisor trust, input, check) reads and writes them directly.
//
// # Goroutines
//
// None: every function runs on its caller's goroutine.
package ondisk
