package gateway_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// An editor launches `mcpvisor serve` over stdio: the client sees the
// fleet's tools as prefix__tool, calls reach the right server, a config
// edit that adds a server reaches it as tools/list_changed, and closing
// stdin stops the gateway and every server. Logs are at debug level the
// whole time: none may reach stdout, which is the MCP stream.
func TestServe_StdioClient(t *testing.T) {
	t.Parallel()
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			cfg := filepath.Join(t.TempDir(), ".mcp.json")
			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha")})

			cmd := serveCommand("--config", cfg, "--debounce", "20ms", "--log-level", "debug")
			stderr := &testkit.SyncBuffer{}
			cmd.Stderr = stderr
			c := connect(t, ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, p.pin)
			closed := false
			t.Cleanup(func() {
				if !closed {
					_ = c.cs.Close()
				}
				if t.Failed() {
					t.Logf("mcpvisor serve stderr:\n%s", stderr.String())
				}
			})
			if got := c.cs.InitializeResult().ProtocolVersion; got != p.want {
				t.Fatalf("negotiated %q, want %q", got, p.want)
			}

			c.waitTools(ctx, qualified("alpha"))
			if text, isErr := c.call(ctx, "alpha__echo", map[string]any{"message": "hi"}); text != "hi" || isErr {
				t.Fatalf("alpha__echo = %q (isError %v), want hi", text, isErr)
			}
			if text, isErr := c.call(ctx, "alpha__fail", nil); !isErr || !strings.Contains(text, "always fails") {
				t.Fatalf("alpha__fail = %q (isError %v), want an isError result", text, isErr)
			}
			alphaPID := c.pid(ctx, "alpha")

			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha"), "beta": example("beta")})
			c.expectChange(ctx, qualified("alpha", "beta"))
			betaPID := c.pid(ctx, "beta")
			if c.pid(ctx, "alpha") != alphaPID {
				t.Fatal("alpha was restarted by an edit that only added beta")
			}

			// The editor quits: stdin closes. CommandTransport.Close waits
			// for the process (it would signal it only after 30s).
			closed = true
			if err := c.cs.Close(); err != nil {
				t.Fatalf("close: %v", err)
			}
			if !cmd.ProcessState.Success() {
				t.Fatalf("mcpvisor serve exited with %s", cmd.ProcessState)
			}
			if !strings.Contains(stderr.String(), "client closed the connection") {
				t.Fatalf("mcpvisor serve did not stop at stdin's end; stderr:\n%s", stderr.String())
			}
			for _, pid := range []int{alphaPID, betaPID} {
				if testkit.ProcessAlive(pid) {
					t.Errorf("server process %d alive after mcpvisor serve exited", pid)
				}
			}
		})
	}
}

// An agent reaches `mcpvisor serve --transport http` at /mcp on loopback:
// a default client (2026-07-28, stateless) and a legacy one (2025-11-25,
// stateful) share the tool set, call tools, and are both told when a
// config edit adds a server; a server crashing mid-call is an isError
// result. SIGTERM stops the gateway with both still connected, and every
// server with it.
func TestServe_HTTPClients(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha")})

	cmd := serveCommand("--transport", "http", "--listen", "127.0.0.1:0", "--config", cfg, "--debounce", "20ms", "--log-level", "debug")
	endpoint, stderr, exited := startHTTPGateway(t, ctx, cmd)

	var clients []*client
	for _, p := range protocols {
		tr := &http.Transport{}
		hc := &http.Client{Transport: bearer{testkit.APIToken(t), tr}}
		c := connect(t, ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, p.pin)
		t.Cleanup(func() {
			_ = c.cs.Close()
			tr.CloseIdleConnections()
		})
		if got := c.cs.InitializeResult().ProtocolVersion; got != p.want {
			t.Fatalf("%s client negotiated %q, want %q", p.name, got, p.want)
		}
		c.waitTools(ctx, qualified("alpha"))
		if text, isErr := c.call(ctx, "alpha__add", map[string]any{"a": 2, "b": 3}); text != "5" || isErr {
			t.Fatalf("%s client: alpha__add = %q (isError %v), want 5", p.name, text, isErr)
		}
		clients = append(clients, c)
	}

	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha"), "beta": example("beta")})
	for _, c := range clients {
		c.expectChange(ctx, qualified("alpha", "beta"))
	}
	pids := []int{clients[0].pid(ctx, "alpha"), clients[1].pid(ctx, "beta")}

	// A server that dies during a call: the model gets an isError result.
	if text, isErr := clients[0].call(ctx, "beta__crash", nil); !isErr || !strings.Contains(text, `server "beta"`) {
		t.Fatalf("beta__crash = %q (isError %v), want an isError result naming beta", text, isErr)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("mcpvisor serve exited with %v; stderr:\n%s", err, stderr.String())
		}
	case <-ctx.Done():
		t.Fatalf("mcpvisor serve did not exit after SIGTERM; stderr:\n%s", stderr.String())
	}
	for _, pid := range pids {
		if testkit.ProcessAlive(pid) {
			t.Errorf("server process %d alive after mcpvisor serve exited", pid)
		}
	}
}

// bearer adds "Authorization: Bearer token" to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

var gatewayAt = regexp.MustCompile(`MCP gateway at (http://\S+/mcp),`)

// startHTTPGateway starts cmd, reads its endpoint from stderr, and keeps
// collecting stderr. exited delivers cmd.Wait's result; the process is
// killed at cleanup if the test did not end it.
func startHTTPGateway(t *testing.T, ctx context.Context, cmd *exec.Cmd) (endpoint string, stderr *testkit.SyncBuffer, exited <-chan error) {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr = &testkit.SyncBuffer{}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			_, _ = stderr.Write([]byte(line + "\n"))
			if m := gatewayAt.FindStringSubmatch(line); m != nil {
				found <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	done := make(chan error, 1)
	go func() {
		<-copied // Wait closes the pipe: read it all first
		done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // no-op once it exited
		<-copied
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr.String())
		}
	})
	select {
	case endpoint = <-found:
	case <-ctx.Done():
		t.Fatalf("mcpvisor serve never said where it listens; stderr:\n%s", stderr.String())
	}
	return endpoint, stderr, done
}

// A gateway config that lists the gateway itself (an easy mistake when the
// editor's .mcp.json is also serve's config): the nested gateway refuses
// to start, that entry fails, the others are served.
func TestServe_ConfigListingTheGatewayDoesNotRecurse(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	self := testkit.Server{Command: bin, Args: []string{"serve", "--config", cfg}}
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": example("alpha"), "self": self})

	cmd := serveCommand("--config", cfg, "--log-level", "info")
	stderr := newLineWaiter()
	cmd.Stderr = stderr
	c := connect(t, ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, "")
	t.Cleanup(func() {
		_ = c.cs.Close()
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr)
		}
	})
	stderr.waitLine(ctx, t, `"server": "self"`, `"to": "failed"`)
	c.waitTools(ctx, qualified("alpha"))
}
