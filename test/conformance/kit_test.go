package conformance_test

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// retryFast retries a failed server after 10 ms, doubling to 100 ms. The
// cap matters only for the HTTP servers, which stay unreachable for the
// ~400 ms their replacement takes to listen; the crash-loop budget is
// raised so that those refused connects cannot park the server.
var retryFast = reconciler.Backoff{Initial: 10 * time.Millisecond, Max: 100 * time.Millisecond}

// startSupervisor writes servers to a fresh config file and supervises it
// with the real watcher. The Supervisor is closed at cleanup (Close is
// idempotent, so a test may close it earlier). The recorder subscribes
// before any server can have connected (a Node server needs ~200 ms).
func startSupervisor(t *testing.T, servers map[string]testkit.Server) (sup *actors.Supervisor, rec *actorstest.Recorder, cfg string) {
	t.Helper()
	cfg = filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, servers)
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{cfg},
		Logger:      zaptest.NewLogger(t, zaptest.Level(zap.InfoLevel)),
		Debounce:    10 * time.Millisecond,
		// server-everything over stdio does not exit when its stdin
		// closes once a roots-capable client is connected: it takes the
		// grace period and SIGTERM every time. Keep that short.
		StopGrace: 500 * time.Millisecond,
		Backoff:   retryFast,
		CrashLoop: reconciler.CrashLoop{Failures: 1000, Window: time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup, actorstest.Record(t, sup), cfg
}

// Entries for the stdio servers.

func everythingStdio() testkit.Server {
	return testkit.Server{Command: nodeBin, Args: []string{everythingJS, "stdio"}}
}

func filesystemStdio(allowed string) testkit.Server {
	return testkit.Server{Command: nodeBin, Args: []string{filesystemJS, allowed}}
}

func memoryStdio(file string) testkit.Server {
	return testkit.Server{Command: nodeBin, Args: []string{memoryJS}, Env: map[string]string{"MEMORY_FILE_PATH": file}}
}

// thinkingStdio runs sequential-thinking with its stderr logging off; a
// different variant is a different env, hence a different fingerprint.
func thinkingStdio(variant int) testkit.Server {
	return testkit.Server{Command: nodeBin, Args: []string{thinkingJS}, Env: map[string]string{
		"DISABLE_THOUGHT_LOGGING": "true",
		"CONFORMANCE_VARIANT":     strconv.Itoa(variant),
	}}
}

// Tool names as each server lists them (peers README, checked against
// these versions).
var (
	// everythingAlways are the tools server-everything lists whatever the
	// client's capabilities.
	everythingAlways = []string{
		"echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference",
		"get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource",
		"simulate-research-query", "toggle-simulated-logging", "toggle-subscriber-updates",
		"trigger-long-running-operation",
	}
	// everythingTools is what mcpvisor sees: its client advertises no
	// capabilities (no roots, sampling, elicitation or tasks: it has none to
	// offer), so none of the conditional tools appears: 13.
	everythingTools = sorted(everythingAlways)
	filesystemTools = []string{
		"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories",
		"list_directory", "list_directory_with_sizes", "move_file", "read_file", "read_media_file",
		"read_multiple_files", "read_text_file", "search_files", "write_file",
	}
	memoryTools = []string{
		"add_observations", "create_entities", "create_relations", "delete_entities",
		"delete_observations", "delete_relations", "open_nodes", "read_graph", "search_nodes",
	}
	thinkingTools = []string{"sequentialthinking"}
)

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func names(tools []messages.Tool) []string {
	out := make([]string, 0, len(tools))
	for _, t := range tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// exposedTools is what the Supervisor exposes for one server now.
func exposedTools(sup *actors.Supervisor, server string) []string {
	var out []string
	for _, t := range sup.Tools() {
		if t.Server == server {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

func serverStatus(t *testing.T, sup *actors.Supervisor, name string) messages.ServerStatus {
	t.Helper()
	for _, s := range sup.Status().Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in status %+v", name, sup.Status())
	return messages.ServerStatus{}
}

// waitTools waits, from event index from on, for a ToolsChanged of server
// that exposes exactly want, and returns its index.
func waitTools(ctx context.Context, t *testing.T, rec *actorstest.Recorder, from int, server string, want []string) int {
	t.Helper()
	i, _ := rec.WaitFor(ctx, from, server+" exposing "+strconv.Itoa(len(want))+" tools "+strings.Join(want, ","), func(e messages.Event) bool {
		tc, ok := e.(*messages.ToolsChanged)
		return ok && tc.Server == server && slices.Equal(names(tc.Tools), want)
	})
	return i
}

// waitReadyOn waits for server to become ready on a session other than
// old; it also matches ready → ready, which is how a make-before-break
// restart reports the swap.
func waitReadyOn(ctx context.Context, t *testing.T, rec *actorstest.Recorder, from int, server string, old uint64) *messages.ServerStateChanged {
	t.Helper()
	_, ev := rec.WaitFor(ctx, from, server+" ready on a new session", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == server && sc.To == messages.StateReady && sc.Session != old
	})
	return ev.(*messages.ServerStateChanged)
}

// eventsOf lists the recorded events about server from index i on.
func eventsOf(rec *actorstest.Recorder, i int, server string) []messages.Event {
	var out []messages.Event
	for _, e := range rec.Since(i) {
		switch e := e.(type) {
		case *messages.ServerStateChanged:
			if e.Server == server {
				out = append(out, e)
			}
		case *messages.ToolsChanged:
			if e.Server == server {
				out = append(out, e)
			}
		}
	}
	return out
}

// pidsSeen are the process ids of every stdio session that was ever ready.
func pidsSeen(rec *actorstest.Recorder) []int {
	var out []int
	for _, e := range rec.Since(0) {
		if sc, ok := e.(*messages.ServerStateChanged); ok && sc.PID > 0 && !slices.Contains(out, sc.PID) {
			out = append(out, sc.PID)
		}
	}
	return out
}

// callText calls a tool through the Supervisor, requires success, and
// returns its text content.
func callText(ctx context.Context, t *testing.T, sup *actors.Supervisor, name string, args map[string]any) string {
	t.Helper()
	res, err := sup.CallTool(ctx, name, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s(%v) answered with an error: %s", name, args, b.String())
	}
	return b.String()
}
