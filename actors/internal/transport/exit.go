package transport

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

// How a server process ended, in words a user can act on.

// ClosedByServer reports whether a handshake failed because the server's
// end of the connection closed (its stdout reached end of file, or its
// stdin was gone when initialize was written: a server that exits at once,
// before mcpvisor writes, makes the write fail with EPIPE), rather than
// because the client gave up on it (garbage on stdout, a protocol error),
// after which the process exits too. The go-sdk flattens the error into
// text ("client is closing: EOF", "client is closing: write |1: broken
// pipe"), so the text is checked as well as the chain.
func ClosedByServer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) ||
		strings.HasSuffix(err.Error(), "EOF") || strings.HasSuffix(err.Error(), syscall.EPIPE.Error())
}

// Exited reports whether the server's process has been reaped. A failed
// Connect closes the session, which waits for the process, so a server
// that exited during the handshake has its exit status by now.
func (c *Conn) Exited() bool { return c.exitState() != nil }

// HandshakeExit says that the server exited before the handshake was done,
// with its exit status and its telling stderr line: the first thing a user
// needs to see when a server does not start (a script not found, an API
// key missing). The SDK's own words for it ("client is closing: EOF") say
// neither. The caller redacts the text (the ring has already).
func (c *Conn) HandshakeExit() error {
	return errors.New("server process exited during the MCP handshake: " + c.exitState().String() + c.stderrSays())
}

// stderrSays is "; stderr: LINE" with the line of the stderr tail that
// most likely says why the server failed (see tellingLine), or "".
func (c *Conn) stderrSays() string {
	line := tellingLine(c.StderrTail())
	if line == "" {
		return ""
	}
	return "; stderr: " + line
}

// ExitCode is the process's exit code, or -1 (not exited, no process).
func (c *Conn) ExitCode() int {
	st := c.exitState()
	if st == nil {
		return -1
	}
	return st.ExitCode()
}

// Broken is why mcpvisor stopped reading a stdio server's output when
// the output was at fault (a message over the bound, a line that is not
// JSON-RPC), else nil. The go-sdk closes the connection on such a read
// error without passing it on, and closing it terminates the process: the
// exit status alone would say "signal: terminated".
func (c *Conn) Broken() error {
	if c.stdio == nil {
		return nil
	}
	return c.stdio.broken()
}

// DeathError describes how a live session ended, from what its Wait
// returned; a process that exited is named with its exit status and its
// telling stderr line.
func (c *Conn) DeathError(err error) error {
	var ee *exec.ExitError
	switch {
	case c.Broken() != nil:
		return fmt.Errorf("server output refused: %w", c.Broken())
	case errors.As(err, &ee):
		return fmt.Errorf("server process exited: %s%s", ee.ProcessState.String(), c.stderrSays())
	case c.Exited():
		return fmt.Errorf("server process exited: %s%s", c.exitState().String(), c.stderrSays())
	case err != nil:
		return fmt.Errorf("session lost: %w", err)
	default:
		return errors.New("session closed by the server")
	}
}
