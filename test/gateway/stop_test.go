package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// clientPatience bounds serve's stop in these tests: Claude Code kills a
// stopping server after 0.5s, the TypeScript SDK after 4s. The old stop
// (5s grace, SIGTERM, a second, SIGKILL) cannot fit in it; the default
// --stop-grace of 300ms does, with room for -race on a busy machine.
const clientPatience = 3 * time.Second

// stubbornGroup is the process group of a server that ignores the end of
// its input and SIGTERM, as server-everything ignores its input's end
// while a roots/list is pending, and that has a grandchild as npx does:
// a shell that ignores SIGTERM starts a grandchild (sleep, which inherits
// that), reports both pids, runs the example server (which exits at its
// input's end), then waits for the grandchild. Only SIGKILL ends it.
type stubbornGroup struct {
	shell, grandchild int
}

// stubborn is the config entry of such a server; the shell writes
// "SHELL GRANDCHILD" to a fifo in dir, which the returned func reads.
func stubborn(t *testing.T, dir string, args ...string) (testkit.Server, func(ctx context.Context) stubbornGroup) {
	t.Helper()
	fifo := filepath.Join(dir, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Read-write: the open does not wait for the shell, and the shell's
	// write does not wait for the test.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	// $$$$ is the shell's $$: the config's expansion reads $$ as $.
	script := fmt.Sprintf("trap '' TERM; sleep 300 & echo $$$$ $! > %s; %s example-server --name stubborn %s; wait",
		fifo, bin, strings.Join(args, " "))
	pids := func(ctx context.Context) stubbornGroup {
		t.Helper()
		if dl, ok := ctx.Deadline(); ok {
			_ = f.SetReadDeadline(dl)
		}
		line, err := bufio.NewReader(f).ReadString('\n')
		var g stubbornGroup
		if err == nil {
			_, err = fmt.Sscan(line, &g.shell, &g.grandchild)
		}
		if err != nil {
			t.Fatalf("the stubborn server's pids: %v (read %q)", err, line)
		}
		// Whatever the test's outcome, nothing of it outlives the test.
		t.Cleanup(func() { _ = syscall.Kill(-g.shell, syscall.SIGKILL) })
		return g
	}
	return testkit.Server{Command: "/bin/sh", Args: []string{"-c", script}}, pids
}

// servedOverPipes is `mcpvisor serve` with its stdin and stdout the
// test's, so that the test can close its input or signal it and see it
// exit.
type servedOverPipes struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	cs     *mcp.ClientSession
	exited chan struct{} // closed once Wait returned
	stderr *testkit.SyncBuffer
}

// serveStubborn runs serve over pipes with the stubborn server (args are
// its) as its only server, and returns once that server's process group
// is up.
func serveStubborn(t *testing.T, ctx context.Context, args ...string) (*servedOverPipes, stubbornGroup) {
	t.Helper()
	dir := t.TempDir()
	server, pids := stubborn(t, dir, args...)
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"stubborn": server})
	s := serveOverPipes(t, ctx, cfg)
	return s, pids(ctx)
}

func serveOverPipes(t *testing.T, ctx context.Context, cfg string) *servedOverPipes {
	t.Helper()
	s := &servedOverPipes{cmd: serveCommand("--config", cfg, "--log-level", "info"), exited: make(chan struct{}), stderr: &testkit.SyncBuffer{}}
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", s.stderr)
		}
	})
	c := connect(t, ctx, &mcp.IOTransport{Reader: stdout, Writer: s.stdin}, "")
	s.cs = c.cs
	t.Cleanup(func() { _ = c.cs.Close() })
	return s
}

// waitExit waits for serve to exit, within the client's patience.
func (s *servedOverPipes) waitExit(t *testing.T, ctx context.Context, how string) {
	t.Helper()
	select {
	case <-s.exited:
	case <-ctx.Done():
		t.Fatalf("mcpvisor serve still running %s after %s (clients kill it by then)", clientPatience, how)
	}
}

// waitGone waits for each pid to be gone.
func waitGone(t *testing.T, ctx context.Context, what string, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if err := testkit.WaitProcessGone(ctx, pid); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// A client's stop (end of input, SIGTERM, SIGINT) ends serve and every
// server's whole process group within the client's patience, even a
// server that ignores both its input's end and SIGTERM: serve used to
// wait the 5s stop grace, then SIGTERM, then a second, and
// `claude mcp list` (which kills after 0.5s) left servers behind.
func TestServe_ClientStopIsFastAndLeavesNoProcess(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		stop func(s *servedOverPipes) error
	}{
		{"end of input", func(s *servedOverPipes) error { return s.stdin.Close() }},
		{"SIGTERM", func(s *servedOverPipes) error { return s.cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGINT", func(s *servedOverPipes) error { return s.cmd.Process.Signal(syscall.SIGINT) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			s, group := serveStubborn(t, ctx)
			c := &client{t: t, cs: s.cs}
			c.waitTools(ctx, qualified("stubborn"))
			mcpPID := c.pid(ctx, "stubborn")

			stopCtx, cancel := context.WithTimeout(ctx, clientPatience)
			defer cancel()
			if err := tt.stop(s); err != nil {
				t.Fatal(err)
			}
			s.waitExit(t, stopCtx, tt.name)
			waitGone(t, stopCtx, "the stubborn server's process group", group.shell, mcpPID, group.grandchild)
		})
	}
}

// A client that gives up while a server is still starting (a one-shot
// `claude mcp list` while npx downloads) gets the same fast stop: the
// go-sdk's Close of the handshake it abandons waits for the process, and
// used to wait out the transport's own escalation.
func TestServe_ClientStopWhileAServerStartsIsFast(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	s, group := serveStubborn(t, ctx, "--init-hang") // the server runs, its handshake unanswered

	stopCtx, cancel := context.WithTimeout(ctx, clientPatience)
	defer cancel()
	if err := s.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	s.waitExit(t, stopCtx, "end of input")
	waitGone(t, stopCtx, "the starting server's process group", group.shell, group.grandchild)
}

// Even a SIGKILL of serve, which runs no code of serve's, leaves no
// server: the shell dies of its parent-death signal, the example server
// of its input's end, and the grandchild (which no parent-death signal
// reaches) is killed with its group by serve's keeper.
func TestServe_KilledLeavesNoProcess(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	s, group := serveStubborn(t, ctx)
	c := &client{t: t, cs: s.cs}
	c.waitTools(ctx, qualified("stubborn"))
	mcpPID := c.pid(ctx, "stubborn")

	deathCtx, cancel := context.WithTimeout(ctx, clientPatience)
	defer cancel()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.exited
	waitGone(t, deathCtx, "the stubborn server's process group", group.shell, mcpPID, group.grandchild)
	if t.Failed() {
		for _, pid := range []int{group.shell, mcpPID, group.grandchild} {
			t.Logf("pid %d alive: %v", pid, testkit.ProcessAlive(pid))
		}
	}
}
