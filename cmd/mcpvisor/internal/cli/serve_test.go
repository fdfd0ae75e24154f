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
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
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
		wantNames     gateway.Names
		wantErr       string
	}{
		{name: "defaults", lookup: noEnv, wantTransport: "stdio", wantListen: defaultListen, wantConfigs: []string{".mcp.json", "~/.mcp.json"}},
		{name: "MCPVISOR_CONFIG", lookup: env, wantTransport: "stdio", wantListen: defaultListen, wantConfigs: []string{"a.json", "~/b.json"}},
		{name: "flags win", args: []string{"--config", "x.json", "--config", "y.json", "--transport", "http", "--listen", "[::1]:0"}, lookup: env,
			wantTransport: "http", wantListen: "[::1]:0", wantConfigs: []string{"x.json", "y.json"}},
		{name: "all interfaces", args: []string{"--transport", "http", "--listen", ":8931"}, lookup: noEnv, wantErr: "not loopback"},
		{name: "public address", args: []string{"--transport", "http", "--listen", "0.0.0.0:8931"}, lookup: noEnv, wantErr: "not loopback"},
		// --listen alone implies HTTP; it once served stdio silently.
		{name: "listen implies http", args: []string{"--listen", "127.0.0.1:0"}, lookup: noEnv, wantTransport: "http", wantListen: "127.0.0.1:0", wantConfigs: []string{".mcp.json", "~/.mcp.json"}},
		{name: "implied http is checked", args: []string{"--listen", "0.0.0.0:8931"}, lookup: noEnv, wantErr: "not loopback"},
		{name: "listen with stdio", args: []string{"--transport", "stdio", "--listen", "127.0.0.1:0"}, lookup: noEnv, wantErr: "--listen is for --transport http"},
		{name: "unknown transport", args: []string{"--transport", "sse"}, lookup: noEnv, wantErr: `--transport "sse"`},
		{name: "arguments", args: []string{"x.json"}, lookup: noEnv, wantErr: "serve takes no arguments"},
		{name: "bare names", args: []string{"--names", "bare"}, lookup: noEnv, wantTransport: "stdio", wantListen: defaultListen,
			wantConfigs: []string{".mcp.json", "~/.mcp.json"}, wantNames: gateway.NamesBare},
		{name: "prefixed names", args: []string{"--names", "prefixed"}, lookup: noEnv, wantTransport: "stdio", wantListen: defaultListen,
			wantConfigs: []string{".mcp.json", "~/.mcp.json"}, wantNames: gateway.NamesPrefixed},
		{name: "unknown names", args: []string{"--names", "short"}, lookup: noEnv, wantErr: `names "short": use prefixed or bare`},
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
			want := tt.wantNames
			if want == "" {
				want = gateway.NamesPrefixed
			}
			if f.names != want {
				t.Errorf("names %q, want %q (prefixed is the default)", f.names, want)
			}
		})
	}
}

// --session-timeout and --max-sessions default to the gateway's defaults;
// 0 turns each off; negative values are refused.
func TestServeFlags_SessionLimits(t *testing.T) {
	t.Parallel()
	noEnv := IO{Stderr: io.Discard, LookupEnv: func(string) (string, bool) { return "", false }}
	tests := []struct {
		args        []string
		wantTimeout time.Duration
		wantMax     int
	}{
		{nil, gateway.DefaultSessionTimeout, gateway.DefaultMaxSessions},
		{[]string{"--session-timeout", "90s", "--max-sessions", "7"}, 90 * time.Second, 7},
		{[]string{"--session-timeout", "0", "--max-sessions", "0"}, -1, -1},
	}
	for _, tt := range tests {
		f, err := parseServeFlags(append([]string{"--transport", "http"}, tt.args...), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		o := f.httpOptions("tok")
		if o.SessionTimeout != tt.wantTimeout || o.MaxSessions != tt.wantMax {
			t.Errorf("%q: timeout %v max %d, want %v %d", tt.args, o.SessionTimeout, o.MaxSessions, tt.wantTimeout, tt.wantMax)
		}
	}
	if _, err := parseServeFlags([]string{"--max-sessions", "-1"}, noEnv); err == nil {
		t.Error("--max-sessions -1 accepted")
	}
}

// --max-name-length defaults to 64 (48 for the names themselves, 16 for
// the client's wrapping) and reaches the gateway's MountOptions; 0 turns
// the bound off (negative there); too small or negative is refused.
func TestServeFlags_MaxNameLength(t *testing.T) {
	t.Parallel()
	noEnv := IO{Stderr: io.Discard, LookupEnv: func(string) (string, bool) { return "", false }}
	tests := []struct {
		args []string
		want int
	}{
		{nil, 64},
		{[]string{"--max-name-length", "80"}, 80},
		{[]string{"--max-name-length", "0"}, -1},
	}
	for _, tt := range tests {
		f, err := parseServeFlags(tt.args, noEnv)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if o := f.mountOptions(zap.NewNop(), nil, nil); o.MaxNameLength != tt.want || o.Names != gateway.NamesPrefixed {
			t.Errorf("%q: MaxNameLength %d names %q, want %d prefixed", tt.args, o.MaxNameLength, o.Names, tt.want)
		}
	}
	for _, bad := range []string{"-1", "20"} {
		_, err := parseServeFlags([]string{"--max-name-length", bad}, noEnv)
		if err == nil || !strings.Contains(err.Error(), "at least 34") {
			t.Errorf("--max-name-length %s: err = %v, want one that says the least it takes", bad, err)
		}
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
	state := t.TempDir()
	stderr := &serveLog{}
	exited := make(chan int, 1)
	go func() {
		exited <- Main(sig, []string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--config", serveEmptyConfig(t)},
			IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, LookupEnv: envMap(map[string]string{"XDG_STATE_HOME": state})})
	}()
	endpoint := stderr.endpoint(ctx, t)
	token, err := readTokenFile(filepath.Join(state, "mcpvisor", "token"))
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token, tr}}, MaxRetries: -1}, nil)
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

// serveHTTP runs `serve --transport http` with args until the test ends
// and returns its endpoint and stderr.
func serveHTTP(t *testing.T, env map[string]string, args ...string) (string, *serveLog) {
	t.Helper()
	ctx, cancel := context.WithCancel(actorstest.Context(t)) // cancelled to stop serve
	stderr := &serveLog{}
	exited := make(chan int, 1)
	go func() {
		exited <- Main(ctx, append([]string{"serve", "--transport", "http", "--listen", "127.0.0.1:0", "--config", serveEmptyConfig(t)}, args...),
			IO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, LookupEnv: envMap(env)})
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-exited; code != ExitOK {
			t.Errorf("serve exit %d\n%s", code, stderr)
		}
	})
	return stderr.endpoint(ctx, t), stderr
}

// post sends an MCP initialize to endpoint with the given headers and
// returns the status code.
func post(t *testing.T, endpoint string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// The HTTP gateway wants the token of the default file (or --token-file),
// refuses web pages of other origins unless --allow-origin trusts them,
// and says where the token is.
func TestServe_HTTPRequiresTheTokenAndChecksOrigin(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	endpoint, stderr := serveHTTP(t, map[string]string{"XDG_STATE_HOME": state}, "--allow-origin", "http://localhost:3000")
	path := filepath.Join(state, "mcpvisor", "token")
	token, err := readTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "clients must send Authorization: Bearer TOKEN, the token in "+path) {
		t.Errorf("stderr does not say where the token is:\n%s", stderr)
	}
	auth := "Bearer " + token
	for _, tc := range []struct {
		headers map[string]string
		want    int
	}{
		{map[string]string{}, http.StatusUnauthorized},
		{map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized},
		{map[string]string{"Authorization": auth}, http.StatusOK},
		{map[string]string{"Authorization": auth, "Origin": "http://evil.example"}, http.StatusForbidden},
		{map[string]string{"Authorization": auth, "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{map[string]string{"Authorization": auth, "Origin": "http://localhost:3000"}, http.StatusOK},
	} {
		if got := post(t, endpoint, tc.headers); got != tc.want {
			t.Errorf("initialize with %v = %d, want %d", tc.headers, got, tc.want)
		}
	}
	if strings.Contains(stderr.String(), token) {
		t.Errorf("stderr shows the token:\n%s", stderr)
	}
}

// --no-auth serves without a token, and says so at start.
func TestServe_NoAuthWarns(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	endpoint, stderr := serveHTTP(t, map[string]string{"XDG_STATE_HOME": state}, "--no-auth")
	if got := post(t, endpoint, nil); got != http.StatusOK {
		t.Errorf("initialize without a token = %d, want 200 with --no-auth", got)
	}
	if !strings.Contains(stderr.String(), "warning: --no-auth: anyone who can reach") {
		t.Errorf("no warning line:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(state, "mcpvisor")); !os.IsNotExist(err) {
		t.Errorf("--no-auth created a token (%v)", err)
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
