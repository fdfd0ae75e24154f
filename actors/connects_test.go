package actors_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// startStdio starts a supervisor on the real clock (the connect policy
// samples real processes) over stdio servers that never answer their
// handshake: each entry is a command line.
func startStdio(t *testing.T, servers map[string][]string, opts actors.Options) (*actors.Supervisor, *actorstest.Recorder) {
	t.Helper()
	entries := map[string]any{}
	for name, argv := range servers {
		entries[name] = map[string]any{"command": argv[0], "args": argv[1:]}
	}
	return startReal(t, entries, opts)
}

// startReal starts a supervisor on the real clock over config entries,
// with a connect timeout the tests never reach.
func startReal(t *testing.T, entries map[string]any, opts actors.Options) (*actors.Supervisor, *actorstest.Recorder) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, entries)
	opts.ConfigPaths, opts.DisableWatch, opts.ProbeInterval = []string{path}, true, -1
	opts.ConnectTimeout, opts.StopGrace = 10*time.Minute, 50*time.Millisecond
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	sup, err := actors.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := actorstest.Record(t, sup)
	t.Cleanup(func() {
		if err := sup.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return sup, rec
}

func needCommands(t *testing.T, names ...string) {
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s not found: the connect policy's tests run real processes", n)
		}
	}
}

// Connects whose processes wait (here: sleep, never answering) leave their
// slots after the grace, so with one slot all three servers are starting
// at once; with the limit as a plain semaphore only the first would be.
func TestFleetActor_IdleConnectsLeaveTheirSlots(t *testing.T) {
	t.Parallel()
	needCommands(t, "sleep")
	ctx := actorstest.Context(t)
	_, rec := startStdio(t, map[string][]string{
		"a": {"sleep", "600"}, "b": {"sleep", "600"}, "c": {"sleep", "600"},
	}, actors.Options{MaxConnects: 1, ConnectGrace: 10 * time.Millisecond})
	for _, name := range []string{"a", "b", "c"} {
		rec.WaitState(ctx, 0, name, messages.StateStarting)
	}
}

// A remote server's handshake costs the machine nothing: HTTP connects
// that wait on an answer leave their slots after the grace too.
func TestFleetActor_RemoteConnectsLeaveTheirSlots(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	// Never answers: each request waits until its client gives up, or
	// the test ends.
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { // after the supervisor's close, which registers later
		close(release)
		srv.Close()
	})
	entries := map[string]any{}
	for _, name := range []string{"a", "b", "c"} {
		entries[name] = map[string]any{"type": "http", "url": srv.URL}
	}
	_, rec := startReal(t, entries, actors.Options{MaxConnects: 1, ConnectGrace: 10 * time.Millisecond})
	for _, name := range []string{"a", "b", "c"} {
		rec.WaitState(ctx, 0, name, messages.StateStarting)
	}
}

// A connect whose processes compute keeps its slot: once a sample has
// found the spinning server busy, the second one is still pending.
func TestFleetActor_BusyConnectsKeepTheirSlots(t *testing.T) {
	t.Parallel()
	needCommands(t, "sh")
	ctx := actorstest.Context(t)
	core, logs := observer.New(zapcore.DebugLevel)
	sampled := make(chan struct{}, 1)
	core = zapcore.RegisterHooks(core, func(e zapcore.Entry) error {
		if e.Message == "connects sampled" {
			select {
			case sampled <- struct{}{}:
			default:
			}
		}
		return nil
	})
	spin := []string{"sh", "-c", "while :; do :; done"}
	sup, rec := startStdio(t, map[string][]string{"a": spin, "b": spin},
		actors.Options{MaxConnects: 1, ConnectGrace: 10 * time.Millisecond, Logger: zap.New(core)})
	rec.WaitState(ctx, 0, "a", messages.StateStarting)
	waitLog(ctx, t, logs, sampled, func(e observer.LoggedEntry) bool {
		return e.Message == "connects sampled" && e.ContextMap()["busy"] == int64(1)
	})
	for _, st := range sup.Status().Servers {
		want := map[string]messages.State{"a": messages.StateStarting, "b": messages.StatePending}[st.Name]
		if st.State != want {
			t.Fatalf("%s is %s after a sample found a busy, want %s", st.Name, st.State, want)
		}
	}
}

// waitLog waits, bounded by ctx, until a log entry matches; logged says
// that an entry that may match was logged.
func waitLog(ctx context.Context, t *testing.T, logs *observer.ObservedLogs, logged <-chan struct{}, match func(observer.LoggedEntry) bool) {
	t.Helper()
	for seen := 0; ; {
		all := logs.All()
		for _, e := range all[seen:] {
			if match(e) {
				return
			}
		}
		seen = len(all)
		select {
		case <-ctx.Done():
			t.Fatal("no matching log entry before the test's deadline")
		case <-logged:
		}
	}
}
