package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

// mcpPeer is one MCP client session the gateway scenarios call through:
// to a server directly, through `mcpvisor serve` (stdio or streamable
// HTTP), through mcp-hub's /mcp endpoint, or to the example server over
// raw streamable HTTP. echo is the name its session knows the server's
// echo tool by.
type mcpPeer struct {
	name  string
	cs    *mcp.ClientSession
	echo  string
	close func()
}

// call makes one echo call, bounded by limit.
func (p *mcpPeer) call(ctx context.Context, limit time.Duration) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t0 := time.Now()
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: p.echo, Arguments: map[string]any{"message": "bench"}})
	d := time.Since(t0)
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: %s answered isError", p.name, p.echo)
	}
	return d, err
}

// benchClient is the go-sdk client every gateway scenario uses; changed,
// if set, hears tools/list_changed.
func benchClient(changed func()) *mcp.Client {
	opts := &mcp.ClientOptions{}
	if changed != nil {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { changed() }
	}
	return mcp.NewClient(&mcp.Implementation{Name: "mcpvisor-bench", Version: "0"}, opts)
}

// connectStdio spawns argv (in a process group of its own, tracked by the
// reaper) as a stdio MCP server and connects to it.
func (h *harness) connectStdio(ctx context.Context, client *mcp.Client, env []string, argv ...string) (*mcp.ClientSession, error) {
	cs, _, err := h.connectStdioCmd(ctx, client, env, argv...)
	return cs, err
}

// connectStdioCmd is connectStdio, returning the process too.
func (h *harness) connectStdioCmd(ctx context.Context, client *mcp.Client, env []string, argv ...string) (*mcp.ClientSession, *exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, h.work
	if h.serveLog != nil && argv[0] == h.bin {
		// -serve-log: serve's debug log, as JSON lines, for a look at
		// where the time went.
		cmd.Args = append(cmd.Args, "--log-level", "debug", "--log-format", "json")
		cmd.Stderr = h.serveLog
	}
	isolate(cmd)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if cmd.Process != nil {
		h.reaper.track(cmd.Process.Pid)
	}
	return cs, cmd, err
}

// findEcho names the echo tool in a session's catalog: "echo" or, through
// a gateway, the one whose name ends in it.
func findEcho(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	for _, t := range res.Tools {
		if t.Name == "echo" || strings.HasSuffix(t.Name, "echo") {
			return t.Name, nil
		}
	}
	return "", fmt.Errorf("no echo tool among %d tools", len(res.Tools))
}

// peerOver wraps a connected session as an mcpPeer.
func peerOver(ctx context.Context, name string, cs *mcp.ClientSession, closeFn func()) (*mcpPeer, error) {
	echo, err := findEcho(ctx, cs)
	if err != nil {
		closeFn()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &mcpPeer{name: name, cs: cs, echo: echo, close: closeFn}, nil
}

// directPeer is the go-sdk client connected straight to the server e.
func (h *harness) directPeer(ctx context.Context, name string, e entry) (*mcpPeer, error) {
	cs, err := h.connectStdio(ctx, benchClient(nil), append(os.Environ(), envList(e.Env)...), append([]string{e.Command}, e.Args...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return peerOver(ctx, name, cs, func() { _ = cs.Close() })
}

// serveStdioPeer is a go-sdk client of `mcpvisor serve` (stdio) on config.
func (h *harness) serveStdioPeer(ctx context.Context, name, config string, env []string, changed func()) (*mcpPeer, error) {
	if env == nil {
		env = os.Environ()
	}
	cs, err := h.connectStdio(ctx, benchClient(changed), env, h.bin, "serve", "--config", config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return peerOver(ctx, name, cs, func() { _ = cs.Close() })
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// serveHTTPPeer starts `mcpvisor serve --transport http` on a free
// loopback port, with the harness's token (MCPVISOR_TOKEN: no token file
// is created), and connects a go-sdk client over streamable HTTP.
func (h *harness) serveHTTPPeer(ctx context.Context, name, config string) (*mcpPeer, error) {
	cmd := exec.Command(h.bin, "serve", "--transport", "http", "--listen", "127.0.0.1:0", "--config", config)
	cmd.Dir = h.work
	cmd.Env = append(os.Environ(), "MCPVISOR_TOKEN="+apiToken)
	url, stop, err := h.startListening(ctx, cmd, true, "mcpvisor serve: MCP gateway at ")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	hc := &http.Client{Transport: bearer{token: apiToken, next: &http.Transport{MaxIdleConnsPerHost: 128}}}
	cs, err := benchClient(nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		stop()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return peerOver(ctx, name, cs, func() { _ = cs.Close(); stop() })
}

// rawHTTPPeer is the example server served over streamable HTTP by the
// go-sdk alone, in a process of its own (the harness binary re-executed):
// one raw HTTP hop, the HTTP counterpart of directPeer.
func (h *harness) rawHTTPPeer(ctx context.Context, name string) (*mcpPeer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), httpExampleVar+"=1")
	url, stop, err := h.startListening(ctx, cmd, false, httpExampleLine)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	cs, err := benchClient(nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		stop()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return peerOver(ctx, name, cs, func() { _ = cs.Close(); stop() })
}

// startListening starts cmd and waits (bounded) for the line that names
// its URL, on stderr or stdout; stop sends SIGTERM and waits.
func (h *harness) startListening(ctx context.Context, cmd *exec.Cmd, onStderr bool, prefix string) (string, func(), error) {
	var out io.ReadCloser
	var err error
	if onStderr {
		out, err = cmd.StderrPipe()
	} else {
		out, err = cmd.StdoutPipe()
	}
	if err != nil {
		return "", nil, err
	}
	exited, err := h.reaper.start(cmd)
	if err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				select {
				case found <- strings.TrimSuffix(strings.Fields(rest)[0], ","):
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case url := <-found:
		return url, stop, nil
	case <-exited:
		return "", nil, fmt.Errorf("%s exited before it listened", cmd.Path)
	case <-time.After(20 * time.Second):
		stop()
		return "", nil, fmt.Errorf("%s printed no address within 20s", cmd.Path)
	case <-ctx.Done():
		stop()
		return "", nil, ctx.Err()
	}
}

// httpExampleVar makes the harness binary serve the example server over
// streamable HTTP instead of benchmarking (see rawHTTPPeer).
const (
	httpExampleVar  = "MCPVISOR_BENCH_HTTP_EXAMPLE"
	httpExampleLine = "bench: example server at "
)

// serveHTTPExample is the re-executed harness of rawHTTPPeer: the example
// server behind the go-sdk's streamable HTTP handler on 127.0.0.1, until
// SIGINT or its parent dies.
func serveHTTPExample() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := exampleserver.New(exampleserver.Options{Name: "example"})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	fmt.Printf("%shttp://%s/mcp\n", httpExampleLine, ln.Addr())
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	stop := make(chan os.Signal, 1)
	signalNotify(stop)
	select {
	case <-stop:
		_ = hs.Close()
		return 0
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return 0
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}

// mcpPeer connects a go-sdk client to mcp-hub's unified endpoint (/mcp:
// the HTTP+SSE transport, POSTs to /messages) and picks server's echo
// tool by the name mcp-hub exposes it under.
func (m *hubManager) mcpPeer(ctx context.Context, name, server string) (*mcpPeer, error) {
	cs, err := benchClient(nil).Connect(ctx, &mcp.SSEClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", m.port)}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		_ = cs.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, t := range res.Tools {
		if strings.Contains(t.Name, server) && strings.HasSuffix(t.Name, "echo") {
			return &mcpPeer{name: name, cs: cs, echo: t.Name, close: func() { _ = cs.Close() }}, nil
		}
	}
	_ = cs.Close()
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return nil, fmt.Errorf("%s: no echo tool of %s among %v", name, server, names)
}
