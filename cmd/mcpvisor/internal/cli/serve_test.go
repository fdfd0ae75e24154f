package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

func TestServeFlags(t *testing.T) {
	t.Parallel()
	noEnv := func(string) (string, bool) { return "", false }
	env := func(string) (string, bool) { return "a.json, ~/b.json,", true }
	tests := []struct {
		name          string
		args          []string
		lookup        func(string) (string, bool)
		wantTransport string
		wantListen    string
		wantConfigs   []string
		wantErr       string
	}{
		{name: "defaults", lookup: noEnv, wantTransport: "stdio", wantListen: defaultListen, wantConfigs: []string{".mcp.json", "~/.mcp.json"}},
		{name: "MCPVISOR_CONFIG", lookup: env, wantTransport: "stdio", wantListen: defaultListen, wantConfigs: []string{"a.json", "~/b.json"}},
		{name: "flags win", args: []string{"--config", "x.json", "--config", "y.json", "--transport", "http", "--listen", "[::1]:0"}, lookup: env,
			wantTransport: "http", wantListen: "[::1]:0", wantConfigs: []string{"x.json", "y.json"}},
		{name: "all interfaces", args: []string{"--transport", "http", "--listen", ":8931"}, lookup: noEnv, wantErr: "not loopback"},
		{name: "public address", args: []string{"--transport", "http", "--listen", "0.0.0.0:8931"}, lookup: noEnv, wantErr: "not loopback"},
		{name: "listen ignored for stdio", args: []string{"--listen", "0.0.0.0:8931"}, lookup: noEnv, wantTransport: "stdio", wantListen: "0.0.0.0:8931", wantConfigs: []string{".mcp.json", "~/.mcp.json"}},
		{name: "unknown transport", args: []string{"--transport", "sse"}, lookup: noEnv, wantErr: `--transport "sse"`},
		{name: "arguments", args: []string{"x.json"}, lookup: noEnv, wantErr: "serve takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseServeFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: tt.lookup})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.transport != tt.wantTransport || f.listen != tt.wantListen {
				t.Errorf("transport %q listen %q, want %q %q", f.transport, f.listen, tt.wantTransport, tt.wantListen)
			}
			if diff := cmp.Diff(tt.wantConfigs, []string(f.configs)); diff != "" {
				t.Errorf("configs (-want +got):\n%s", diff)
			}
		})
	}
}

// A non-loopback listen address is refused before anything starts.
func TestServe_NonLoopbackListenRefused(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--transport", "http", "--listen", "0.0.0.0:0", "--config", serveEmptyConfig(t)},
		IO{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, LookupEnv: func(string) (string, bool) { return "", false }})
	if code != ExitUsage || !strings.Contains(stderr.String(), "not loopback") || stdout.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want %d and a refusal", code, stdout.String(), stderr.String(), ExitUsage)
	}
}

// In stdio mode the client's end of stdin ends `serve` cleanly; stdout
// carries nothing but MCP, even with debug logs on.
func TestServe_StdioEndsWhenClientCloses(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, 30*time.Second)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &serveLog{}
	exited := make(chan int, 1)
	go func() {
		exited <- Main(ctx, []string{"serve", "--config", serveEmptyConfig(t), "--log-level", "debug"},
			IO{Stdin: inR, Stdout: outW, Stderr: stderr, LookupEnv: func(string) (string, bool) { return "", false }})
		_ = outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("capabilities %+v: want tools.listChanged", caps)
	}
	if res, err := cs.ListTools(ctx, nil); err != nil || len(res.Tools) != 0 {
		t.Errorf("tools %v, err %v: want none (the config has no servers)", res, err)
	}
	_ = cs.Close()
	select {
	case code := <-exited:
		if code != ExitOK || !strings.Contains(stderr.String(), "client closed the connection") {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
	case <-ctx.Done():
		t.Fatalf("serve did not end when the client closed stdin; stderr:\n%s", stderr)
	}
}

// In HTTP mode `serve` prints where it listens, and a signal (ctx) stops it
// even with a client connected.
func TestServe_HTTPStopsOnSignal(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, 30*time.Second)
	sig, interrupt := context.WithCancel(ctx)
	stderr := &serveLog{}
	exited := make(chan int, 1)
	go func() {
		exited <- Main(sig, []string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--config", serveEmptyConfig(t)},
			IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, LookupEnv: func(string) (string, bool) { return "", false }})
	}()
	endpoint := stderr.endpoint(ctx, t)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	defer cs.Close()
	interrupt()
	select {
	case code := <-exited:
		if code != ExitOK || !strings.Contains(stderr.String(), "signal received") {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr)
		}
	case <-ctx.Done():
		t.Fatalf("serve did not stop on its signal; stderr:\n%s", stderr)
	}
}

func serveEmptyConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveLog is serve's stderr: it keeps everything and reports the HTTP
// endpoint once printed.
type serveLog struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
	at   chan string
	sent bool
}

var serveEndpoint = regexp.MustCompile(`MCP gateway at (http://\S+/mcp),`)

func (l *serveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.once.Do(func() { l.at = make(chan string, 1) })
	l.buf.Write(p)
	if m := serveEndpoint.FindStringSubmatch(l.buf.String()); m != nil && !l.sent {
		l.sent = true
		l.at <- m[1]
	}
	return len(p), nil
}

func (l *serveLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *serveLog) endpoint(ctx context.Context, t *testing.T) string {
	t.Helper()
	l.mu.Lock()
	l.once.Do(func() { l.at = make(chan string, 1) })
	at := l.at
	l.mu.Unlock()
	select {
	case e := <-at:
		return e
	case <-ctx.Done():
		t.Fatalf("serve never printed its endpoint; stderr:\n%s", l)
		return ""
	}
}

// A gateway whose config lists the gateway itself: the nested one refuses
// to start (it would start another, and so on).
func TestServe_NestedGatewayRefused(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	lookup := func(k string) (string, bool) {
		if k == parentEnv {
			return "mcpvisor-serve-4242", true
		}
		return "", false
	}
	code := Main(context.Background(), []string{"serve", "--config", serveEmptyConfig(t)},
		IO{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, LookupEnv: lookup})
	if code != ExitUsage || !strings.Contains(stderr.String(), "launched by another gateway (MCPVISOR_SERVE_PID=mcpvisor-serve-4242)") || stdout.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want %d and a refusal", code, stdout.String(), stderr.String(), ExitUsage)
	}
}
