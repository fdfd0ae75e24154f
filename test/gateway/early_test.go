package gateway_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Requests that come early (issue 24, item 2): a one-shot client (the MCP
// Inspector's CLI starts a gateway per command) calls, gets, reads and
// completes right after it connects, while its server is still starting.
// The server's start is held on a FIFO the test opens, once the gateway
// says every request waits for it ("request waits for its server to
// start", logged at debug): no sleep decides anything.

// waitingLine is what `serve --log-level debug` logs when a request waits
// for its server.
const waitingLine = "request waits for its server to start"

// newGate makes a FIFO in dir that a gated server's shell reads before it
// becomes the server.
func newGate(t *testing.T, dir string) string {
	t.Helper()
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	return gate
}

// gatedServer is an entry whose shell waits for a line on gate, then runs
// script (which finds the handshake waiting on its stdin).
func gatedServer(gate, script string) testkit.Server {
	return testkit.Server{Command: "/bin/sh", Args: []string{"-c", `read _ < "$1" && ` + script, "sh", gate, bin}, ConnectTimeout: "5m"}
}

// gatedExample is the example server named name, with prompts, resources
// and completions, held on gate.
func gatedExample(gate, name string) testkit.Server {
	return gatedServer(gate, `exec "$2" example-server --prompts --resources --completion --name `+name)
}

// openGate lets the gated server's shell go on: the write blocks until it
// reads.
func openGate(t *testing.T, ctx context.Context, gate string) {
	t.Helper()
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("go\n")
			_ = f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the gated server never waited on its FIFO")
	}
}

// waitLines waits until n stderr lines hold every one of parts, or one of
// the answers (of requests that should be waiting) comes first.
func waitLines(ctx context.Context, t *testing.T, w *lineWaiter, n int, answers <-chan answer, parts ...string) {
	t.Helper()
	for {
		w.mu.Lock()
		lines, written := strings.Split(w.buf.String(), "\n"), w.written
		w.mu.Unlock()
		got := 0
		for _, line := range lines {
			if containsAll(line, parts) {
				got++
			}
		}
		if got >= n {
			return
		}
		select {
		case <-written:
		case a := <-answers:
			t.Fatalf("%s answered while its server was still starting: %q, %v", a.what, a.text, a.err)
		case <-ctx.Done():
			t.Fatalf("%d of %d requests wait for their server; stderr:\n%s", got, n, w)
		}
	}
}

// answer is what one request got: its text (the tool result's, the
// prompt's first message, the resource's contents, the completions).
type answer struct {
	what    string
	text    string
	isError bool
	err     error
}

// ask runs each of requests on its own goroutine; their answers arrive on
// the channel returned, in any order.
func ask(ctx context.Context, cs *mcp.ClientSession, requests ...string) <-chan answer {
	out := make(chan answer, len(requests))
	for _, what := range requests {
		go func() { out <- request(ctx, cs, what) }()
	}
	return out
}

// request sends one of the requests the tests make, by name.
func request(ctx context.Context, cs *mcp.ClientSession, what string) answer {
	a := answer{what: what}
	switch kind, name, _ := strings.Cut(what, " "); kind {
	case "call":
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"message": "hi"}})
		if a.err = err; err == nil {
			a.text, a.isError = testkit.Text(res), res.IsError
		}
	case "get":
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"name": "Ada"}})
		if a.err = err; err == nil && len(res.Messages) > 0 {
			if tc, ok := res.Messages[0].Content.(*mcp.TextContent); ok {
				a.text = tc.Text
			}
		}
	case "read":
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: name})
		if a.err = err; err == nil && len(res.Contents) > 0 {
			a.text = res.Contents[0].Text
		}
	case "complete":
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: name},
			Argument: mcp.CompleteParamsArgument{Name: "language", Value: "fr"}})
		if a.err = err; err == nil {
			a.text = strings.Join(res.Completion.Values, ",")
		}
	default:
		a.err = errors.New("no such request")
	}
	return a
}

// collect gathers n answers by what they asked.
func collect(ctx context.Context, t *testing.T, answers <-chan answer, n int) map[string]answer {
	t.Helper()
	out := map[string]answer{}
	for range n {
		select {
		case a := <-answers:
			out[a.what] = a
		case <-ctx.Done():
			t.Fatalf("only %d of %d requests answered: %v", len(out), n, out)
		}
	}
	return out
}

// serveOneShot starts `mcpvisor serve` on cfg with its catalog cache in
// cacheDir and connects one client at once, as the Inspector's CLI does.
func serveOneShot(t *testing.T, ctx context.Context, cfg, cacheDir string) (*catalogClient, *lineWaiter) {
	t.Helper()
	cmd := newServe("--config", cfg, "--cache-dir", cacheDir, "--log-level", "debug")
	return connectCatalog(t, ctx, cmd, ""), cmd.stderr
}

// warmCache runs serve once on cfg until gate's server is ready and
// listed, then stops it: the catalog cache in cacheDir knows its catalog.
func warmCache(t *testing.T, ctx context.Context, cfg, cacheDir, gate string) {
	t.Helper()
	c, _ := serveOneShot(t, ctx, cfg, cacheDir)
	openGate(t, ctx, gate)
	for !slices.Contains(c.names(ctx), "gated__echo") {
		select {
		case <-c.changed:
		case <-ctx.Done():
			t.Fatal("the warm-up never listed gated__echo")
		}
	}
	if err := c.cs.Close(); err != nil {
		t.Fatalf("close the warm-up client: %v", err)
	}
}

// A one-shot client's first tools/call, prompts/get, resources/read (of a
// listed URI and of one a template matches) and completion, sent while its
// server starts, wait for it and are answered, with the catalog cache cold
// (nothing lists the server yet) and warm (the cache lists it). Names and
// URIs nobody provides are answered at once all the same: "unknown tool",
// "unknown prompt"; with a warm cache, a name or URI the cached catalog
// lacks too.
func TestServe_OneShotRequestsWaitForAStartingServer(t *testing.T) {
	t.Parallel()
	for _, warm := range []bool{false, true} {
		name := map[bool]string{false: "cold", true: "warm"}[warm]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			dir := t.TempDir()
			gate, cacheDir, cfg := newGate(t, dir), filepath.Join(dir, "cache"), filepath.Join(dir, ".mcp.json")
			testkit.WriteConfig(t, cfg, map[string]testkit.Server{"gated": gatedExample(gate, "gated")})
			if warm {
				warmCache(t, ctx, cfg, cacheDir, gate)
			}

			c, stderr := serveOneShot(t, ctx, cfg, cacheDir)
			requests := []string{"call gated__echo", "get gated__greet", "read example://static/readme", "read example://items/apple", "complete gated__greet"}
			answers := ask(ctx, c.cs, requests...)
			waitLines(ctx, t, stderr, len(requests), answers, waitingLine, `"server": "gated"`)

			unknown := []string{"call nobody__echo", "get nobody__greet"}
			if warm {
				unknown = append(unknown, "call gated__nope", "get gated__nope", "read example://nowhere")
			}
			for _, what := range unknown {
				a := request(ctx, c.cs, what)
				var wire *jsonrpc.Error
				if !errors.As(a.err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("%s while the server starts: %q, %v; want unknown at once", what, a.text, a.err)
				}
			}

			openGate(t, ctx, gate)
			got := collect(ctx, t, answers, len(requests))
			for what, want := range map[string]string{
				"call gated__echo":             "hi",
				"get gated__greet":             "Say hello to Ada in english.",
				"read example://static/readme": "example",
				"read example://items/apple":   "apple",
				"complete gated__greet":        "french",
			} {
				if a := got[what]; a.err != nil || a.isError || !strings.Contains(a.text, want) {
					t.Errorf("%s: %q (isError %v), %v; want it answered, with %q", what, a.text, a.isError, a.err, want)
				}
			}
		})
	}
}

// A server that fails to start while a request waits for it answers that
// request with its failure: the call is an isError result, the get an
// error, each naming the server and why it did not start.
func TestServe_ARequestForAServerThatFailsToStartSaysWhy(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	gate, cfg := newGate(t, dir), filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"broken": gatedServer(gate, `echo "an API key is required: set BROKEN_API_KEY" >&2; exit 3`),
	})
	c, stderr := serveOneShot(t, ctx, cfg, "-")
	requests := []string{"call broken__echo", "get broken__greet"}
	answers := ask(ctx, c.cs, requests...)
	waitLines(ctx, t, stderr, len(requests), answers, waitingLine, `"server": "broken"`)
	openGate(t, ctx, gate)
	got := collect(ctx, t, answers, len(requests))
	if a := got["call broken__echo"]; a.err != nil || !a.isError || !strings.Contains(a.text, `server "broken" did not start: failed`) {
		t.Errorf("call: %q (isError %v), %v; want an isError result saying broken did not start, and why", a.text, a.isError, a.err)
	}
	if a := got["get broken__greet"]; a.err == nil || !strings.Contains(a.err.Error(), `server "broken" did not start: failed`) {
		t.Errorf("get: %q, %v; want an error saying broken did not start, and why", a.text, a.err)
	}
	t.Logf("call answered: %q; get: %v", got["call broken__echo"].text, got["get broken__greet"].err)
}
