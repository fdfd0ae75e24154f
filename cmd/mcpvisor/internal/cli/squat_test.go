package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// squatEnv makes the test binary, re-executed as another user, a
// squatter on a loopback port (its value "tcp") or on a Unix socket (its
// value the socket's path): it prints "listening ADDR", then for each
// connection reads the request (up to its blank line, or until the
// client closes), answers 401 to a request, and prints "received %q"
// with every byte it got.
const squatEnv = "CLI_TEST_SQUAT"

func squat(where string) int {
	network, addr := "tcp", "127.0.0.1:0"
	if where != "tcp" {
		network, addr = "unix", where
	}
	ln, err := net.Listen(network, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("listening %s\n", ln.Addr())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		var got bytes.Buffer
		buf := make([]byte, 4096)
		for !bytes.Contains(got.Bytes(), []byte("\r\n\r\n")) {
			n, err := c.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if got.Len() > 0 {
			_, _ = io.WriteString(c, "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 22\r\nConnection: close\r\n\r\n{\"error\": \"squatted\"}\n")
		}
		c.Close()
		fmt.Printf("received %q\n", got.String())
	}
}

// squatter is the squatting process as another user.
type squatter struct {
	addr  string
	lines *bufio.Reader
	stop  func()
}

// startSquatter runs the test binary as another user, squatting where
// ("tcp": a loopback port; else a Unix socket at that path). It must run
// as root to act as another user, and says so loudly otherwise.
func startSquatter(t *testing.T, where string) *squatter {
	t.Helper()
	cmd := testkit.Stranger(t).Command(context.Background(), testkit.SharedTestBinary(t))
	cmd.Env = []string{squatEnv + "=" + where}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &squatter{lines: bufio.NewReader(stdout), stop: func() { stdin.Close(); _ = cmd.Wait() }}
	t.Cleanup(s.stop)
	line, err := s.lines.ReadString('\n')
	if !strings.HasPrefix(line, "listening ") {
		t.Fatalf("the squatter as another user did not start: %q, %v", line, err)
	}
	s.addr = strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	return s
}

// received is what the squatter got on its next connection. A squatter
// that says nothing before ctx ends (the CLI never connected) fails the
// test; its reader ends when the squatter is stopped.
func (s *squatter) received(ctx context.Context, t *testing.T) string {
	t.Helper()
	type said struct {
		line string
		err  error
	}
	next := make(chan said, 1)
	go func() {
		line, err := s.lines.ReadString('\n')
		next <- said{line, err}
	}()
	var line string
	select {
	case got := <-next:
		if line = got.line; got.err != nil || !strings.HasPrefix(line, "received ") {
			t.Fatalf("the squatter said %q, %v; want what it received", line, got.err)
		}
	case <-ctx.Done():
		t.Fatalf("the squatter said nothing (did the CLI connect?): %v", ctx.Err())
	}
	got, err := strconv.Unquote(strings.TrimSpace(strings.TrimPrefix(line, "received ")))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// P1: while the daemon is down, another local user listens on its
// address. `mcpvisor status` used to send it the bearer token, which then
// worked against the real daemon. Now the CLI sees that the socket that
// accepted its connection is another user's, not its own, refuses with an error
// naming the address and the owner, and sends nothing: the squatter
// receives not one byte.
func TestClient_RefusesADaemonAddressSquattedByAnotherUser(t *testing.T) {
	t.Parallel()
	sq := startSquatter(t, "tcp")
	state := t.TempDir()
	writeToken(t, filepath.Join(state, "mcpvisor", "token"), s3cret, 0o600)
	ctx := actorstest.Context(t)
	for _, args := range [][]string{{"status"}, {"call", "alpha__echo", `{}`}, {"events", "--since", "0"}} {
		r := mcpvisor(ctx, map[string]string{"MCPVISOR_ADDR": sq.addr, "XDG_STATE_HOME": state}, "", args...)
		r.want(t, cli.ExitFailed, "", "refusing to talk to "+sq.addr)
		if !strings.Contains(r.stderr, "("+testkit.Stranger(t).Name+")") || !strings.Contains(r.stderr, "nothing was sent") {
			t.Errorf("%v: stderr %q, want the owner named and that nothing was sent", args, r.stderr)
		}
		if got := sq.received(ctx, t); got != "" {
			t.Fatalf("%v: the squatter received %q, want nothing", args, got)
		}
	}
}

// The daemon's Unix socket, in the user's private directory, served by
// another user's process: only the user or root can put a socket there,
// so the peer check is a second line, and it must hold. The other user's
// process (another user) listens in a shared directory; the test, as root,
// moves the socket into the user's private directory (a socket file
// keeps its listener when renamed). The CLI refuses, naming the owner,
// and sends nothing.
func TestClient_RefusesADaemonSocketServedByAnotherUser(t *testing.T) {
	t.Parallel()
	sq := startSquatter(t, filepath.Join(testkit.SharedDir(t), "s"))
	state, runtime := t.TempDir(), t.TempDir()
	writeToken(t, filepath.Join(state, "mcpvisor", "token"), s3cret, 0o600)
	sock := filepath.Join(runtime, "mcpvisor", "api.sock")
	if err := os.Mkdir(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(sq.addr, sock); err != nil {
		t.Fatal(err)
	}
	ctx := actorstest.Context(t)
	r := mcpvisor(ctx, map[string]string{"XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": runtime}, "", "status")
	r.want(t, cli.ExitFailed, "", "refusing to talk to "+sock)
	if !strings.Contains(r.stderr, "the process at the other end belongs to uid") || !strings.Contains(r.stderr, "("+testkit.Stranger(t).Name+")") {
		t.Errorf("stderr %q, want the socket's owner named", r.stderr)
	}
	if got := sq.received(ctx, t); got != "" {
		t.Fatalf("the socket's squatter received %q, want nothing", got)
	}
}

// The default daemon's address is reached through its Unix socket when
// there is one (its TCP port, 127.0.0.1:7767, is not even tried: the
// fleet served on the socket answers). The socket's directory must be
// the user's alone.
func TestClient_PrefersTheDaemonsUnixSocket(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	state, runtime := t.TempDir(), t.TempDir()
	writeToken(t, filepath.Join(state, "mcpvisor", "token"), s3cret, 0o600)
	sock := filepath.Join(runtime, "mcpvisor", "api.sock")
	fleet := &httpapitest.Fleet{}
	fleet.SetStatus(messages.Status{Servers: []messages.ServerStatus{{Name: "via-the-socket", State: messages.StateReady}}})
	serveUnix(t, sock, fleet)
	env := map[string]string{"XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": runtime}
	mcpvisor(ctx, env, "", "status").want(t, cli.ExitOK, "via-the-socket", "")

	if err := os.Chmod(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	mcpvisor(ctx, env, "", "status").want(t, cli.ExitFailed, "", "accessible by others (mode 0755)")
}

// serveUnix serves the API over fleet on a Unix socket at path, in a
// directory 0700, as `mcpvisor run` does.
func serveUnix(t *testing.T, path string, fleet *httpapitest.Fleet) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := httpapi.New(httpapi.Options{Fleet: fleet, Token: s3cret, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	served := make(chan struct{})
	go func() { defer close(served); _ = hs.Serve(ln) }()
	t.Cleanup(func() { hs.Close(); <-served })
}
