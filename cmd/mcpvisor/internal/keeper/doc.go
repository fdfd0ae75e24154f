// Package keeper kills what is left of a mcpvisor's servers when that
// mcpvisor dies, however it dies.
//
// Each stdio server runs in a process group of its own, led by the
// server. On Linux the server gets a parent-death signal, so a SIGKILL of
// mcpvisor kills it, but not its descendants: npx's node, the children of
// sh -c, whatever the server started. The keeper is a second process (the
// mcpvisor binary, re-executed as the hidden command Command) that
// mcpvisor tells of every group it starts and ends, over a pipe only
// mcpvisor holds the writing end of. When mcpvisor dies the kernel closes
// that end; the keeper reads the end of its input, SIGKILLs every group
// still listed, and exits. A mcpvisor that stops normally has ended every
// group first, so its keeper kills nothing.
//
// The keeper is in a process group of its own, so that a signal to
// mcpvisor's group (a terminal's ^C, a client killing the group) does not
// end it first, and it ignores SIGINT, SIGTERM and SIGHUP: it ends only
// at the end of its input. It holds none of mcpvisor's standard streams,
// so a client waiting for mcpvisor's output to close does not wait for it.
//
// A group is a server's pid, listed from the server's start until it was
// reaped and its group killed: the number cannot name another group while
// listed, but for the moment between that kill and the line that
// unlists it, should mcpvisor die right then and the number be reused at
// once.
//
// Start and Keeper's methods run in mcpvisor; Run is the keeper's loop.
// Keeper is safe for concurrent use; it starts no goroutine.
package keeper
