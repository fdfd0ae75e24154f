package conformance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// subject is one real server under test, as one entry of a config file.
type subject struct {
	name  string
	entry testkit.Server
	// tools is exactly what the server lists to mcpvisor, sorted.
	tools []string
	// exercise calls some tools and checks the answers.
	exercise func(ctx context.Context, t *testing.T, sup *actors.Supervisor)
	// afterRestart calls a tool once the server came back on a new process.
	afterRestart func(ctx context.Context, t *testing.T, sup *actors.Supervisor)
	// http, when set, is the HTTP server behind the entry: the test kills
	// it, and starts it again once mcpvisor reported the failure. Otherwise
	// the test kills the stdio process, by the pid in Status, with SIGKILL.
	http *httpServer
}

// other is the sibling every subject shares its config with: the edit
// that restarts it must leave the subject alone.
const other = "other"

// checkConformance runs one subject through mcpvisor's whole contract:
// tools listed (after server-everything's list_changed burst), calls
// answered, an edit of a sibling leaves it alone, a kill is detected and
// recovered from, and Close leaves no process of it behind.
func checkConformance(ctx context.Context, t *testing.T, s subject) {
	sup, rec, cfg := startSupervisor(t, map[string]testkit.Server{s.name: s.entry, other: thinkingStdio(1)})

	// Tools: exactly the expected list, reached without ever withdrawing
	// a tool from the live session on the way (server-everything announces
	// its conditional tools with a burst of list_changed right after
	// initialize; mcpvisor relists and publishes only real differences).
	_, ready := rec.WaitState(ctx, 0, s.name, messages.StateReady)
	_, otherReady := rec.WaitState(ctx, 0, other, messages.StateReady)
	settled := waitTools(ctx, t, rec, 0, s.name, s.tools)
	var toolEvents int
	for _, e := range rec.Since(0)[:settled+1] {
		if tc, ok := e.(*messages.ToolsChanged); ok && tc.Server == s.name {
			toolEvents++
			if len(tc.Removed) > 0 || tc.Session != ready.Session {
				t.Errorf("tools event during start-up: %+v, want additions on session %d only", tc, ready.Session)
			}
		}
	}
	t.Logf("%s: ready (pid %d) with %d tools after %d ToolsChanged event(s)", s.name, ready.PID, len(s.tools), toolEvents)
	awaitView(ctx, t, sup)
	if st := serverStatus(t, sup, s.name); st.State != messages.StateReady || st.Tools != len(s.tools) || st.Session != ready.Session {
		t.Fatalf("status of %s = %+v, want ready on session %d with %d tools", s.name, st, ready.Session, len(s.tools))
	}
	if got := exposedTools(sup, s.name); !slices.Equal(got, s.tools) {
		t.Fatalf("Tools() for %s = %v, want %v", s.name, got, s.tools)
	}
	if s.http == nil && ready.PID <= 0 {
		t.Fatalf("%s is a stdio server and became ready with pid %d", s.name, ready.PID)
	}

	s.exercise(ctx, t, sup)

	// An edit that restarts the sibling leaves the subject on the same
	// session and process, without a single event about it.
	mark := rec.Len()
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{s.name: s.entry, other: thinkingStdio(2)})
	restarted := waitReadyOn(ctx, t, rec, mark, other, otherReady.Session)
	if restarted.PID == otherReady.PID {
		t.Fatalf("%s restarted on the same pid %d", other, restarted.PID)
	}
	// A resync goes through the config actor and the fleet actor after the
	// edit: a barrier for anything the edit could still cause.
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatal(err)
	}
	if got := eventsOf(rec, mark, s.name); len(got) != 0 {
		t.Fatalf("an edit of %s caused events about %s: %v", other, s.name, describe(got))
	}
	if st := serverStatus(t, sup, s.name); st.State != messages.StateReady || st.Session != ready.Session || st.PID != ready.PID {
		t.Fatalf("%s after an edit of %s = %+v, want ready on session %d pid %d", s.name, other, st, ready.Session, ready.PID)
	}

	// A kill is detected and recovered from, on a new session (and, for
	// stdio, a new process), with the tools back.
	mark = rec.Len()
	s.kill(t, sup)
	_, failed := rec.WaitState(ctx, mark, s.name, messages.StateFailed)
	if failed.Error == "" {
		t.Fatalf("failure event = %+v, want an error", failed)
	}
	t.Logf("%s: kill reported as %q", s.name, failed.Error)
	if s.http != nil {
		s.http.start(ctx)
	}
	again := waitReadyOn(ctx, t, rec, mark, s.name, ready.Session)
	if s.http == nil && (again.PID <= 0 || again.PID == ready.PID) {
		t.Fatalf("%s recovered on pid %d, want a new process (old %d)", s.name, again.PID, ready.PID)
	}
	if s.http == nil && testkit.ProcessAlive(ready.PID) {
		t.Fatalf("killed process %d of %s is still there (not reaped)", ready.PID, s.name)
	}
	checkRecoveryStates(t, rec.StateChanges(mark, s.name), s.http != nil)
	waitTools(ctx, t, rec, mark, s.name, s.tools)
	awaitView(ctx, t, sup)
	if got := exposedTools(sup, s.name); !slices.Equal(got, s.tools) {
		t.Fatalf("Tools() for %s after recovery = %v, want %v", s.name, got, s.tools)
	}
	s.afterRestart(ctx, t, sup)

	// Close leaves none of the processes it ever ran.
	seen := pidsSeen(rec)
	if err := sup.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for _, pid := range seen {
		if testkit.ProcessAlive(pid) {
			t.Errorf("server process %d alive after Close", pid)
		}
	}
}

// awaitView returns once Status, Tools and call routing reflect every
// event recorded so far. The fleet actor publishes events before it swaps
// the view (see TestEvents_ViewReflectsEventWhenPublished), so a test
// that reads the view right after an event needs this barrier: a resync
// passes through the fleet actor's mailbox, and each message it handled
// before ends with the view swapped. Nothing is failed here, so the
// resync itself changes nothing.
func awaitView(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
	t.Helper()
	if _, _, err := sup.Resync(ctx, false); err != nil {
		t.Fatalf("resync (as a barrier): %v", err)
	}
}

// kill makes the subject's server die under mcpvisor.
func (s subject) kill(t *testing.T, sup *actors.Supervisor) {
	t.Helper()
	if s.http != nil {
		s.http.kill()
		return
	}
	st := serverStatus(t, sup, s.name)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", st.PID, err)
	}
}

// checkRecoveryStates checks the transitions from a kill to recovery. A
// stdio server is back at the first retry; an HTTP server refuses
// connections until the test has started it again, so retries may fail
// meanwhile.
func checkRecoveryStates(t *testing.T, got []string, http bool) {
	t.Helper()
	want := []string{"ready→failed", "failed→starting", "starting→ready"}
	if !http {
		if !slices.Equal(got, want) {
			t.Fatalf("transitions from kill to recovery = %v, want %v", got, want)
		}
		return
	}
	ok := len(got) >= 3 && got[0] == want[0] && got[len(got)-1] == want[2]
	for _, sc := range got[1 : len(got)-1] {
		ok = ok && (sc == "failed→starting" || sc == "starting→failed")
	}
	if !ok {
		t.Fatalf("transitions from kill to recovery = %v, want ready→failed, then failed→starting / starting→failed retries, then starting→ready", got)
	}
}

func describe(events []messages.Event) string {
	var b strings.Builder
	for _, e := range events {
		data, _ := json.Marshal(e)
		b.WriteString("\n  " + e.EventType() + " " + string(data))
	}
	return b.String()
}

func TestConformance_Everything(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"stdio", "streamableHttp", "sse"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			s := subject{
				name:  "everything",
				entry: everythingStdio(),
				tools: everythingTools,
				exercise: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
					if got := callText(ctx, t, sup, "everything__echo", map[string]any{"message": "hello, mcpvisor"}); got != "Echo: hello, mcpvisor" {
						t.Fatalf("echo = %q", got)
					}
					if got := callText(ctx, t, sup, "everything__get-sum", map[string]any{"a": 2, "b": 40}); got != "The sum of 2 and 40 is 42." {
						t.Fatalf("get-sum = %q", got)
					}
				},
				afterRestart: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
					if got := callText(ctx, t, sup, "everything__echo", map[string]any{"message": "back"}); got != "Echo: back" {
						t.Fatalf("echo after restart = %q", got)
					}
				},
			}
			if transport != "stdio" {
				s.http = startHTTPServer(ctx, t, transport)
				s.entry = s.http.entry()
			}
			checkConformance(ctx, t, s)
		})
	}
}

func TestConformance_Filesystem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(file, []byte("hello from the conformance test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
		if got := callText(ctx, t, sup, "filesystem__read_text_file", map[string]any{"path": file}); got != "hello from the conformance test\n" {
			t.Fatalf("read_text_file = %q", got)
		}
	}
	checkConformance(actorstest.Context(t), t, subject{
		name:  "filesystem",
		entry: filesystemStdio(dir),
		tools: filesystemTools,
		exercise: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
			read(ctx, t, sup)
			// Outside the allowed directory: a tool error, not a failure of
			// the call or of the session.
			res, err := sup.CallTool(ctx, "filesystem__read_text_file", map[string]any{"path": "/etc/hostname"})
			if err != nil || !res.IsError {
				t.Fatalf("read outside the allowed directory = %+v, %v; want a result with IsError", res, err)
			}
		},
		afterRestart: read,
	})
}

func TestConformance_Memory(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "memory.jsonl")
	search := func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
		got := callText(ctx, t, sup, "memory__search_nodes", map[string]any{"query": "reconciles"})
		if !strings.Contains(got, `"mcpvisor"`) {
			t.Fatalf("search_nodes = %s, want the entity mcpvisor", got)
		}
	}
	checkConformance(actorstest.Context(t), t, subject{
		name:  "memory",
		entry: memoryStdio(file),
		tools: memoryTools,
		exercise: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
			callText(ctx, t, sup, "memory__create_entities", map[string]any{"entities": []any{
				map[string]any{"name": "mcpvisor", "entityType": "program", "observations": []string{"reconciles MCP sessions"}},
			}})
			var graph struct {
				Entities []struct {
					Name         string   `json:"name"`
					EntityType   string   `json:"entityType"`
					Observations []string `json:"observations"`
				} `json:"entities"`
			}
			if err := json.Unmarshal([]byte(callText(ctx, t, sup, "memory__read_graph", map[string]any{})), &graph); err != nil {
				t.Fatal(err)
			}
			if len(graph.Entities) != 1 || graph.Entities[0].Name != "mcpvisor" || !slices.Equal(graph.Entities[0].Observations, []string{"reconciles MCP sessions"}) {
				t.Fatalf("read_graph = %+v, want the one entity created", graph)
			}
			search(ctx, t, sup)
			if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), `"mcpvisor"`) {
				t.Fatalf("MEMORY_FILE_PATH %s = %q, %v; want the entity stored there", file, data, err)
			}
		},
		// The new process reads the graph back from MEMORY_FILE_PATH.
		afterRestart: search,
	})
}

func TestConformance_SequentialThinking(t *testing.T) {
	t.Parallel()
	think := func(ctx context.Context, t *testing.T, sup *actors.Supervisor, thought int) map[string]any {
		t.Helper()
		var out map[string]any
		text := callText(ctx, t, sup, "sequential-thinking__sequentialthinking", map[string]any{
			"thought": "step", "thoughtNumber": thought, "totalThoughts": 2, "nextThoughtNeeded": thought < 2,
		})
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("sequentialthinking answered %q: %v", text, err)
		}
		return out
	}
	checkConformance(actorstest.Context(t), t, subject{
		name:  "sequential-thinking",
		entry: thinkingStdio(0),
		tools: thinkingTools,
		exercise: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
			think(ctx, t, sup, 1)
			if got := think(ctx, t, sup, 2); got["thoughtHistoryLength"] != 2.0 || got["nextThoughtNeeded"] != false {
				t.Fatalf("second thought = %v, want a history of 2 and no next thought", got)
			}
		},
		// A new process starts with an empty history.
		afterRestart: func(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
			if got := think(ctx, t, sup, 1); got["thoughtHistoryLength"] != 1.0 {
				t.Fatalf("first thought after restart = %v, want a history of 1", got)
			}
		},
	})
}
