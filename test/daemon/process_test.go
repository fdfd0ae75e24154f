package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// daemonTimeout bounds a test that builds and runs mcpvisor: longer than
// actorstest.Context's default, the build being part of it.
const daemonTimeout = 90 * time.Second

// process is a running mcpvisor whose standard output is read line by
// line as it comes; everything it printed is also kept.
type process struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string // closed at EOF
	stdout testkit.SyncBuffer
	stderr testkit.SyncBuffer
	done   chan struct{}
	err    error // Wait's, once done is closed
}

// start runs bin with args and env added to the test's environment.
func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	p := &process{t: t, cmd: exec.Command(bin, args...), lines: make(chan string, 4096), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.stdout.Write(append(sc.Bytes(), '\n'))
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// waitLine returns the first line to come that satisfies match.
func (p *process) waitLine(ctx context.Context, what string, match func(string) bool) string {
	p.t.Helper()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("waiting for %s: %s exited\nstdout:\n%s\nstderr:\n%s", what, p.cmd.Args[1], p.stdout.String(), p.stderr.String())
			}
			if match(line) {
				return line
			}
		case <-ctx.Done():
			p.t.Fatalf("waiting for %s: %v\nstdout:\n%s\nstderr:\n%s", what, ctx.Err(), p.stdout.String(), p.stderr.String())
		}
	}
}

// waitEvent reads `events --json` lines until one of type typ whose event
// satisfies match.
func (p *process) waitEvent(ctx context.Context, what, typ string, match func(map[string]any) bool) {
	p.t.Helper()
	p.waitLine(ctx, what, func(line string) bool {
		var ev struct {
			Type  string         `json:"type"`
			Event map[string]any `json:"event"`
		}
		return json.Unmarshal([]byte(line), &ev) == nil && ev.Type == typ && match(ev.Event)
	})
}

// waitState waits for a server.state event of server reaching state.
func (p *process) waitState(ctx context.Context, server, state string) {
	p.t.Helper()
	p.waitStates(ctx, map[string]string{server: state})
}

// waitStates waits until each server has reached its state, in any order.
func (p *process) waitStates(ctx context.Context, want map[string]string) {
	p.t.Helper()
	pending := maps.Clone(want)
	p.waitEvent(ctx, fmt.Sprint(want), "server.state", func(e map[string]any) bool {
		server, _ := e["server"].(string)
		if state, ok := pending[server]; ok && e["to"] == state && e["from"] != state {
			delete(pending, server)
		}
		return len(pending) == 0
	})
}

// interrupt sends SIGINT and returns the exit code.
func (p *process) interrupt(ctx context.Context) int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		p.t.Fatal(err)
	}
	return p.exitCode(ctx)
}

// exitCode waits for the process to exit on its own.
func (p *process) exitCode(ctx context.Context) int {
	p.t.Helper()
	for drained := false; !drained; { // so the process never blocks on a full pipe
		select {
		case _, ok := <-p.lines:
			drained = !ok
		case <-ctx.Done():
			p.t.Fatalf("%s did not exit: %v", p.cmd.Args[1], ctx.Err())
		}
	}
	<-p.done // follows EOF at once: Wait only reaps
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}

// daemon starts `mcpvisor run` on cfg with its API on a free loopback
// port and returns it and its address.
func daemon(ctx context.Context, t *testing.T, env []string, cfg string, extra ...string) (*process, string) {
	t.Helper()
	args := append([]string{"run", "--config", cfg, "--listen", "127.0.0.1:0", "--debounce", "10ms"}, extra...)
	d := start(t, env, args...)
	line := d.waitLine(ctx, "the API address", func(l string) bool { return strings.HasPrefix(l, "mcpvisor: HTTP API on http://") })
	addr, _, _ := strings.Cut(strings.TrimPrefix(line, "mcpvisor: HTTP API on http://"), " ")
	return d, addr
}

// result is one finished CLI command.
type result struct {
	code           int
	stdout, stderr string
}

// run runs one CLI command to the end.
func run(ctx context.Context, t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	return result{code, stdout.String(), stderr.String()}
}

func (r result) ok(t *testing.T, args ...string) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
	return r
}
