package cli_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// result is one CLI run.
type result struct {
	code           int
	stdout, stderr string
}

// mcpvisor runs the CLI in-process with env as its whole environment.
func mcpvisor(ctx context.Context, env map[string]string, stdin string, args ...string) result {
	var stdout, stderr testkit.SyncBuffer
	code := cli.Main(ctx, args, cli.IO{
		Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	return result{code, stdout.String(), stderr.String()}
}

// daemon serves the API over fleet with token (a default one if "") and
// returns the environment that points the CLI at it: MCPVISOR_ADDR, and
// XDG_STATE_HOME holding the token file, as `mcpvisor run` leaves it.
func daemon(t *testing.T, fleet *httpapitest.Fleet, token string) map[string]string {
	t.Helper()
	if token == "" {
		token = "token-of-the-cli-tests-at-least-32-bytes"
	}
	srv, err := httpapi.New(httpapi.Options{Fleet: fleet, Token: token, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	state := t.TempDir()
	writeToken(t, filepath.Join(state, "mcpvisor", "token"), token, 0o600)
	return map[string]string{"MCPVISOR_ADDR": strings.TrimPrefix(ts.URL, "http://"), "XDG_STATE_HOME": state}
}

// s3cret is the daemon's token in the tests that name it.
const s3cret = "s3cret-of-the-cli-tests-32-bytes-long"

// writeToken writes a token file as mcpvisor would (directory 0700).
func writeToken(t *testing.T, path, token string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(token+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // umask
		t.Fatal(err)
	}
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func (r result) want(t *testing.T, code int, stdoutHas, stderrHas string) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stdout, stdoutHas) || !strings.Contains(r.stderr, stderrHas) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout with %q, stderr with %q", r.code, r.stdout, r.stderr, code, stdoutHas, stderrHas)
	}
}

func statusFleet() *httpapitest.Fleet {
	f := &httpapitest.Fleet{}
	f.SetStatus(messages.Status{
		Generation: 2, ObservedGeneration: 2,
		Servers: []messages.ServerStatus{
			{Name: "alpha", Prefix: "alpha", Transport: messages.TransportStdio, State: messages.StateReady, Tools: 7, Since: time.Now()},
			{Name: "beta", Prefix: "beta", Transport: messages.TransportStdio, State: messages.StateFailed, LastError: "server process exited: exit status 1"},
		},
	})
	return f
}

func TestStatus_PrintsTheTable(t *testing.T) {
	t.Parallel()
	env := daemon(t, statusFleet(), "")
	r := mcpvisor(actorstest.Context(t), env, "", "status")
	r.want(t, cli.ExitOK, "NAME   PREFIX  TRANSPORT  STATE   TOOLS  RESTARTS  AGE  LAST ERROR\n", "")
	for _, row := range []string{`(?m)^alpha  alpha   stdio      ready   7      0         \d+s$`, `(?m)^beta   beta    stdio      failed  0      0         -    server process exited: exit status 1$`} {
		if !regexp.MustCompile(row).MatchString(r.stdout) {
			t.Errorf("no row matching %s in\n%s", row, r.stdout)
		}
	}
}

func TestStatus_JSONIsTheAPIsAnswer(t *testing.T) {
	t.Parallel()
	env := daemon(t, statusFleet(), "")
	r := mcpvisor(actorstest.Context(t), env, "", "status", "--json")
	r.want(t, cli.ExitOK, `{"generation":2,"observedGeneration":2,"servers":[{"name":"alpha",`, "")
}

// Nothing listening: exit 3 and a message that says what to do.
func TestClient_UnreachableDaemonIsExit3(t *testing.T) {
	t.Parallel()
	addr := deadAddr(t)
	for _, args := range [][]string{
		{"status"}, {"tools"}, {"call", "alpha__echo"}, {"resync"}, {"events"},
		{"status", "--addr", addr},
	} {
		r := mcpvisor(actorstest.Context(t), map[string]string{"MCPVISOR_ADDR": addr}, "", args...)
		r.want(t, cli.ExitNoDaemon, "", "cannot reach the daemon at "+addr+" (connection refused): is `mcpvisor run` running? (set --addr or MCPVISOR_ADDR)")
		if lines := strings.Count(r.stderr, "\n"); lines != 1 {
			t.Errorf("%v: %d lines on stderr, want one:\n%s", args, lines, r.stderr)
		}
	}
}

// --addr wins over MCPVISOR_ADDR.
func TestClient_AddrFlagWinsOverEnvironment(t *testing.T) {
	t.Parallel()
	env := daemon(t, statusFleet(), "")
	good := env["MCPVISOR_ADDR"]
	env["MCPVISOR_ADDR"] = deadAddr(t)
	mcpvisor(actorstest.Context(t), env, "", "status", "--addr", good).want(t, cli.ExitOK, "alpha", "")
	mcpvisor(actorstest.Context(t), env, "", "status", "--addr", "http://"+good).want(t, cli.ExitOK, "alpha", "")
}

// The CLI finds the token by itself in the daemon's default token file;
// MCPVISOR_TOKEN wins over it and --token-file over both; with none it
// says what to do, and a wrong one is refused.
func TestClient_Token(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, statusFleet(), s3cret)
	addr := env["MCPVISOR_ADDR"]
	mcpvisor(ctx, env, "", "status").want(t, cli.ExitOK, "alpha", "") // the default file, no flag

	file := filepath.Join(t.TempDir(), "token")
	writeToken(t, file, s3cret, 0o600)
	noToken := map[string]string{"MCPVISOR_ADDR": addr}
	mcpvisor(ctx, noToken, "", "status", "--token-file", file).want(t, cli.ExitOK, "alpha", "")
	mcpvisor(ctx, map[string]string{"MCPVISOR_ADDR": addr, "MCPVISOR_TOKEN": s3cret}, "", "status").want(t, cli.ExitOK, "alpha", "")
	mcpvisor(ctx, noToken, "", "status").want(t, cli.ExitFailed, "", "needs a token and none was found")
	mcpvisor(ctx, map[string]string{"MCPVISOR_ADDR": addr, "XDG_STATE_HOME": t.TempDir()}, "", "status").want(t, cli.ExitFailed, "", "needs a token and none was found")

	wrongEnv := map[string]string{"MCPVISOR_ADDR": addr, "XDG_STATE_HOME": env["XDG_STATE_HOME"], "MCPVISOR_TOKEN": "a-wrong-token-long-enough-to-be-sent"}
	mcpvisor(ctx, wrongEnv, "", "status").want(t, cli.ExitFailed, "", "refused the token")       // the variable wins over the file
	mcpvisor(ctx, wrongEnv, "", "status", "--token-file", file).want(t, cli.ExitOK, "alpha", "") // the flag wins over both
	mcpvisor(ctx, noToken, "", "status", "--token-file", filepath.Join(t.TempDir(), "missing")).want(t, cli.ExitFailed, "", "token file")
}

// Like ssh with a private key, the CLI refuses a token file that its
// group or others may read, and says how to fix it.
func TestClient_TokenFileReadableByOthersIsRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, statusFleet(), s3cret)
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		path := filepath.Join(env["XDG_STATE_HOME"], "mcpvisor", "token")
		writeToken(t, path, s3cret, mode)
		mcpvisor(ctx, env, "", "status").want(t, cli.ExitFailed, "", fmt.Sprintf("token file %s is accessible by others (mode %04o)", path, mode))
		other := filepath.Join(t.TempDir(), "token")
		writeToken(t, other, s3cret, mode)
		mcpvisor(ctx, env, "", "status", "--token-file", other).want(t, cli.ExitFailed, "", "chmod 600 "+other)
	}
}

func TestTools_ListsNames(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetTools([]messages.Tool{{Server: "alpha", Prefix: "alpha", Name: "echo", Description: "Returns the message unchanged."}})
	env := daemon(t, fleet, "")
	mcpvisor(actorstest.Context(t), env, "", "tools").want(t, cli.ExitOK, "NAME         SERVER  DESCRIPTION\nalpha__echo  alpha   Returns the message unchanged.\n", "")
	mcpvisor(actorstest.Context(t), env, "", "tools", "--json").want(t, cli.ExitOK, `{"tools":[{"name":"alpha__echo","server":"alpha","prefix":"alpha","tool":"echo"`, "")
	mcpvisor(actorstest.Context(t), daemon(t, &httpapitest.Fleet{}, ""), "", "tools").want(t, cli.ExitOK, "no tools", "")
}

func callFleet() *httpapitest.Fleet {
	return &httpapitest.Fleet{CallFunc: func(_ context.Context, name string, args any) (*mcp.CallToolResult, error) {
		switch name {
		case "alpha__echo":
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s", args)}}}, nil
		case "alpha__fail":
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "this tool always fails"}}}, nil
		case "alpha__image":
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2}}}}, nil
		}
		return nil, fmt.Errorf("%w: %q", actors.ErrUnknownServer, name)
	}}
}

func TestCall_OutputAndExitCodes(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, callFleet(), "")
	mcpvisor(ctx, env, "", "call", "alpha__echo", `{"message": "hi"}`).want(t, cli.ExitOK, `{"message":"hi"}`+"\n", "")
	mcpvisor(ctx, env, "", "call", "alpha__echo").want(t, cli.ExitOK, "{}\n", "")
	mcpvisor(ctx, env, `{"from": "stdin"}`, "call", "alpha__echo", "-").want(t, cli.ExitOK, `{"from":"stdin"}`, "")
	mcpvisor(ctx, env, "", "call", "--json", "alpha__echo").want(t, cli.ExitOK, `{"content":[{"type":"text","text":"{}"}],"isError":false}`, "")
	mcpvisor(ctx, env, "", "call", "alpha__image").want(t, cli.ExitOK, `"type":"image"`, "")
	mcpvisor(ctx, env, "", "call", "alpha__fail").want(t, cli.ExitFailed, "this tool always fails\n", "alpha__fail reported an error")
	mcpvisor(ctx, env, "", "call", "zeta__x").want(t, cli.ExitFailed, "", `mcpvisor call: unknown server: "zeta__x"`)
	mcpvisor(ctx, env, "", "call").want(t, cli.ExitUsage, "", "want a tool name")
	mcpvisor(ctx, env, "", "call", "alpha__echo", "[1]").want(t, cli.ExitUsage, "", "arguments must be a JSON object")
	mcpvisor(ctx, env, "", "call", "alpha__echo", "{", "extra").want(t, cli.ExitUsage, "", "want a tool name")
}

func TestResync_PrintsPlanAndOutcome(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	outcome := messages.StateReady
	fleet := &httpapitest.Fleet{ResyncFunc: func(_ context.Context, dry bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
		p := &messages.ResyncPlanned{Generation: 2, DryRun: dry, Steps: []messages.PlanStep{{Server: "beta", Action: messages.ActionRetry, Reason: "failed: retry"}}}
		if dry {
			return p, nil, nil
		}
		return p, &messages.ResyncCompleted{Outcomes: []messages.ServerOutcome{{Server: "beta", State: outcome, Error: map[bool]string{true: "", false: "exit status 1"}[outcome == messages.StateReady]}}}, nil
	}}
	env := daemon(t, fleet, "")
	mcpvisor(ctx, env, "", "resync").want(t, cli.ExitOK, "plan for generation 2:\n  beta  retry  failed: retry\noutcome:\n  beta  ready\n", "")
	mcpvisor(ctx, env, "", "resync", "--dry-run").want(t, cli.ExitOK, "dry run", "")
	mcpvisor(ctx, env, "", "resync", "--json").want(t, cli.ExitOK, `"complete":true`, "")
	outcome = messages.StateFailed
	mcpvisor(ctx, env, "", "resync").want(t, cli.ExitFailed, "beta  failed  exit status 1", "beta is failed")
	mcpvisor(ctx, env, "", "resync", "extra").want(t, cli.ExitUsage, "", "no arguments")
}

// events replays, follows, and exits 0 when interrupted; a stream the
// daemon ends is exit 3.
func TestEvents_FollowsUntilInterrupted(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	fleet.Publish(&messages.ServerStateChanged{Server: "alpha", From: messages.StateStarting, To: messages.StateReady, Reason: "connected", PID: 41872})
	fleet.Publish(&messages.PlanComputed{Generation: 2, Steps: []messages.PlanStep{{Server: "alpha", Action: messages.ActionKeep}, {Server: "beta", Action: messages.ActionStart, Reason: "new"}}})
	followed := fleet.Followers()
	env := daemon(t, fleet, "")

	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(runCtx, []string{"events", "--since", "0"}, cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	<-followed
	fleet.Publish(&messages.ToolsChanged{Server: "alpha", Tools: make([]messages.Tool, 2), Added: []string{"echo", "pid"}})
	for _, want := range []string{
		"alpha       starting → ready     connected  (pid 41872)",
		"plan        generation 2: start beta (new), keep 1",
		"alpha       tools: 2  +echo +pid",
	} {
		if line := stdout.next(ctx, t); !strings.HasSuffix(line, want) {
			t.Fatalf("line %q, want it to end with %q", line, want)
		}
	}
	interrupt()
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("exit %d after an interrupt, want 0", code)
	}
}

func TestEvents_JSONAndBadSince(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	fleet.Publish(&messages.WatcherDegraded{Reason: "inotify limit"})
	env := daemon(t, fleet, "")
	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(runCtx, []string{"events", "--since=0", "--json"}, cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	want := `{"seq":1,"time":"2026-03-01T10:02:11.204Z","type":"watcher.degraded","event":{"reason":"inotify limit"}}`
	if line := stdout.next(ctx, t); line != want {
		t.Fatalf("line %q, want %q", line, want)
	}
	interrupt()
	<-done
	mcpvisor(ctx, env, "", "events", "--since", "x").want(t, cli.ExitUsage, "", "--since")
}

// lineReader is an io.Writer whose lines a test reads as they come.
type lineReader struct {
	mu      sync.Mutex
	partial string
	lines   chan string
}

func newLineReader() *lineReader { return &lineReader{lines: make(chan string, 1024)} }

func (l *lineReader) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial += string(p)
	for {
		line, rest, ok := strings.Cut(l.partial, "\n")
		if !ok {
			return len(p), nil
		}
		l.lines <- line
		l.partial = rest
	}
}

func (l *lineReader) next(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case line := <-l.lines:
		return line
	case <-ctx.Done():
		t.Fatal("no more output")
		return ""
	}
}

func TestClient_UsageErrorsAreExit2(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	for _, args := range [][]string{
		{"status", "extra"}, {"status", "--nope"}, {"tools", "x"}, {"resync", "--dry-run=maybe"}, {"events", "x"},
	} {
		if r := mcpvisor(ctx, nil, "", args...); r.code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	if r := mcpvisor(ctx, nil, "", "status", "-h"); r.code != cli.ExitOK || !strings.Contains(r.stderr, "Usage: mcpvisor status") {
		t.Errorf("status -h: exit %d\n%s", r.code, r.stderr)
	}
}
