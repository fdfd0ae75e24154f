// Package ndjson is mcpvisor's own connection for MCP's stdio transport:
// JSON-RPC messages, one per line, over a pair of byte streams (a server
// process's stdout and stdin).
//
// The go-sdk's connection for the same framing decodes every message
// through a decoder that allocates a fresh 32 KiB buffer per value, and
// several values are decoded per message: about 100 KB allocated per
// notification, which made relaying a chatty server's progress cost more
// garbage collection than work. This one frames lines with one reused
// buffer and decodes each message once, with encoding/json.
//
// Reading is done on the caller's goroutine (the go-sdk's one reader), with
// no goroutine of its own: Read blocks in the underlying reader, and
// returns when it delivers a line, an error or end of file. So the reader
// must be one whose Read a close elsewhere interrupts, as a process's
// stdout is (exec.Cmd.Wait closes it once the process is gone) and as
// net.Pipe is. Writes are serialized by a mutex and may come from any
// goroutine. The package starts no goroutine.
//
// What it accepts is what the go-sdk's own connection accepts: a message
// per line, blank lines between them, a JSON-RPC batch (an array, its
// messages read one by one), and a value pretty-printed over several
// lines (kept reading until it is whole). A line that is not JSON-RPC
// ends the connection with an error that says why.
package ndjson
