package transport

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/ndjson"
)

// stdioTransport starts a server process and speaks MCP over its stdin and
// stdout, as the go-sdk's CommandTransport does (Wait runs when the
// connection closes, once reading is done, since Wait closes the pipes),
// with two differences. The connection is mcpvisor's own (package
// ndjson: no decoder buffer per message). And the exit is published (exited closed) only once
// Wait has written cmd.ProcessState, and whoever reads the exit status
// goes through exitState, so no read races that write. The go-sdk's
// transport can return from Close (a signal that fails, a wait it gave
// up) while its Wait still runs, and the session then read the status
// while Wait wrote it.
type stdioTransport struct {
	cmd *exec.Cmd
	// terminate bounds each step of Close's escalation (close stdin, then
	// SIGTERM, then SIGKILL). It is a backstop beyond the session's own
	// stop on the quartz clock (close, grace, SIGTERM, a second, SIGKILL to
	// the whole group), so it must never overtake it.
	terminate time.Duration
	// groups, if set, is told of the server's process group once it runs
	// and, through what it returns, once the group is gone
	// (Options.ProcessGroups).
	groups func(pgid int) (gone func())
	// reap is closed (once) by Close: the goroutine that started the
	// process may now wait for it (run).
	reap     chan struct{}
	reapOnce sync.Once
	exited   chan struct{}
	waitErr  error // written before exited is closed
	// pid is the process's once started, else 0: a stop may signal the
	// group while Start still writes cmd.Process.
	pid atomic.Int64
	// conn is the connection Connect returned (its Broken says why
	// reading ended, when the server's output was at fault).
	conn atomic.Pointer[ndjson.Conn]
}

func newStdioTransport(cmd *exec.Cmd, terminate time.Duration, groups func(int) func()) *stdioTransport {
	return &stdioTransport{cmd: cmd, terminate: terminate, groups: groups, reap: make(chan struct{}), exited: make(chan struct{})}
}

// Connect starts the process. It may be called once.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	started := make(chan error, 1)
	go t.run(started)
	if err := <-started; err != nil {
		return nil, err
	}
	// The connection ends by closing stdin (the spec's stdio shutdown),
	// never stdout, which Wait closes once the process is gone: that is
	// what ends a read the connection has blocked in.
	conn := ndjson.NewConn(io.NopCloser(stdout), &stdinCloser{stdin: stdin, t: t})
	t.conn.Store(conn)
	return conn, nil
}

// run starts the process and, once Close asks (reap), waits for it, on
// one goroutine locked to its OS thread the whole time: the server's
// parent-death signal fires when the thread that forked it ends
// (procattr_linux.go), and a locked goroutine's thread ends only with it.
// Once the server is reaped its group is killed (whatever it left
// behind dies with it) and the group's keeper told.
func (t *stdioTransport) run(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := t.cmd.Start(); err != nil {
		started <- err
		return
	}
	pgid := t.cmd.Process.Pid
	t.pid.Store(int64(pgid))
	gone := func() {}
	if t.groups != nil {
		gone = t.groups(pgid)
	}
	started <- nil
	<-t.reap
	t.waitErr = t.cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	gone()
	close(t.exited)
}

// release lets run wait for the process: Close does, and so does Reap for
// a connection the go-sdk gave up without closing it.
func (t *stdioTransport) release() { t.reapOnce.Do(func() { close(t.reap) }) }

// broken is why reading the server's output ended, when that output was at
// fault (ndjson.Conn.Broken), else nil.
func (t *stdioTransport) broken() error {
	if conn := t.conn.Load(); conn != nil {
		return conn.Broken()
	}
	return nil
}

// exitState is the process's exit status once it has been waited for, else
// nil (not started, or still running).
func (t *stdioTransport) exitState() *os.ProcessState {
	select {
	case <-t.exited:
		return t.cmd.ProcessState
	default:
		return nil
	}
}

// stdinCloser is the connection's writer: closing it closes the server's
// stdin and waits for the process to exit, escalating to SIGTERM and then
// SIGKILL if it does not.
type stdinCloser struct {
	stdin io.WriteCloser
	t     *stdioTransport
}

func (w *stdinCloser) Write(p []byte) (int, error) { return w.stdin.Write(p) }

func (w *stdinCloser) Close() error {
	closeErr := w.stdin.Close()
	t := w.t
	t.release()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			_ = t.cmd.Process.Signal(sig)
		}
		// Real time, not the quartz clock: this is the backstop for a
		// process nothing else stops, and a test's mock clock would never
		// let it fire.
		timer := time.NewTimer(t.terminate)
		select {
		case <-t.exited:
			timer.Stop()
			return errors.Join(closeErr, t.waitErr)
		case <-timer.C:
		}
	}
	return errors.Join(closeErr, errors.New("server process did not exit after SIGKILL"))
}
