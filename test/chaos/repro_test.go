package chaos_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/test/testkit"
	"github.com/mcpvisor/mcpvisor/watcher"
)

// A changed server whose old session dies while its new one is still
// connecting (make-before-break), and whose new session then fails too,
// is failed with the new session's error. reconcilerActor.serverFailed
// handles the new session's failure as "keep serving on the old session"
// and reads s.cur.id, but the old session's death had set s.cur to nil:
// the fleet actor panics (nil pointer dereference), protoactor restarts it
// with an empty state and stops its children, so every server process is
// killed while status, frozen at the last snapshot, still shows them ready,
// and resyncs never complete. Found by TestChaos (an edit that breaks a
// server, then kill -9 of its old session).
func TestRepro_NewSessionFailsAfterOldSessionDied(t *testing.T) {
	ctx := actorstest.ContextTimeout(t, 20*time.Second)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	write := func(args string) {
		data := fmt.Sprintf(`{"mcpServers": {"x": {"command": %q, "args": ["example-server"%s], "connectTimeout": "2s"}}}`, bin, args)
		if err := os.WriteFile(cfg+".tmp", []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(cfg+".tmp", cfg); err != nil {
			t.Fatal(err)
		}
	}
	write("")
	logs := newObservedLogging()
	sup, err := actors.Start(actors.Options{
		ConfigPaths: []string{cfg}, Logger: logs.logger,
		DisableWatch: true, StopGrace: 200 * time.Millisecond,
		Backoff: reconciler.Backoff{Initial: time.Hour, Max: time.Hour}, // no retry meanwhile
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	t.Cleanup(func() {
		for _, e := range logs.logs.All() {
			if isPanicLine(e) {
				t.Errorf("panic recovered: %s", logLine(e))
			}
		}
	})
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "x", messages.StateReady)

	// The change: its new session hangs in the handshake for 2s while the
	// old one serves.
	write(`, "--init-hang"`)
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	rec.WaitFor(ctx, mark, "the restart applied", func(e messages.Event) bool {
		pa, ok := e.(*messages.PlanApplied)
		return ok && len(pa.Steps) == 1 && pa.Steps[0].Action == messages.ActionRestart
	})
	// The old session dies meanwhile.
	if err := syscall.Kill(ready.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.WaitState(ctx, mark, "x", messages.StateFailed)
	// Then the new one times out: that failure must be reported.
	wait, cancelWait := context.WithTimeout(ctx, 8*time.Second)
	defer cancelWait()
	rec.WaitFor(wait, mark, "the new session's failure", func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == "x" && strings.Contains(sc.Error, "handshake")
	})
}

// The watcher's "paths changed" debug line must keep saying which paths
// changed. flush logs zap.Strings("paths", changed) where changed is the
// watcher's reusable scratch slice; the next event overwrites it, so a
// core that keeps entries (zaptest/observer, any buffering core) later
// reads other paths, and -race reports the write.
func TestRepro_WatcherLogLineAliasesScratch(t *testing.T) {
	ctx := actorstest.ContextTimeout(t, 10*time.Second)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.json"), filepath.Join(dir, "second.json")
	core, logs := observer.New(zapcore.DebugLevel)
	changes := make(chan []string, 10)
	w, err := watcher.New([]string{first, second}, watcher.Options{
		Logger: zap.New(core), Debounce: 10 * time.Millisecond,
		OnChange: func(paths []string) { changes <- paths },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, p := range []string{first, second} {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-changes:
			if len(got) != 1 || got[0] != p {
				t.Fatalf("OnChange(%v), want [%s]", got, p)
			}
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	var logged [][]any
	for _, e := range logs.FilterMessage("paths changed").AllUntimed() {
		logged = append(logged, e.ContextMap()["paths"].([]any))
	}
	want := [][]any{{first}, {second}}
	if fmt.Sprint(logged) != fmt.Sprint(want) {
		t.Fatalf("\"paths changed\" lines say %v, want %v", logged, want)
	}
}

// A server removed while its session is still connecting ends stopped.
// The chaos run found servers stuck in "stopping" for good: the stop
// cancelled the lifeline's connect, which reported "stopped while
// connecting" as a failure, which the fleet actor dropped as stale (the
// session was stopping), and no sessionStopped followed (fixed in
// 45f4adc).
func TestRepro_RemovedWhileConnectingEndsStopped(t *testing.T) {
	ctx := actorstest.ContextTimeout(t, 20*time.Second)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"x": testkit.Example(bin, "--init-hang")})
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, StopGrace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	rec := actorstest.Record(t, sup)
	rec.WaitState(ctx, 0, "x", messages.StateStarting) // hangs in its handshake (connect timeout 30s)

	testkit.WriteConfig(t, cfg, map[string]testkit.Server{})
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	rec.WaitState(ctx, mark, "x", messages.StateStopping)
	wait, cancelWait := context.WithTimeout(ctx, 5*time.Second)
	defer cancelWait()
	rec.WaitState(wait, mark, "x", messages.StateStopped)
}

// Stopping a server whose process neither exits nor dies quickly must not
// read the process's exit status while the go-sdk still waits for it.
// The go-sdk's CommandTransport closes the process in pipeRWC.Close: close
// stdin, wait TerminateDuration (mcpvisor's StopGrace), SIGTERM, wait,
// SIGKILL, wait, then give up ("unresponsive subprocess") while its own
// goroutine is still in cmd.Wait. The lifeline then calls exitCode, which
// reads cmd.ProcessState: a data race with that cmd.Wait (and the process
// may be reaped after Close returned). Here the server is stopped
// (SIGSTOP) and a grandchild holds its stderr, so cmd.Wait also waits
// WaitDelay after the SIGKILL: longer than the go-sdk's three waits of
// StopGrace. Found by TestChaos (SIGSTOP, then the server removed).
func TestRepro_StopReadsExitStatusDuringWait(t *testing.T) {
	ctx := actorstest.ContextTimeout(t, 20*time.Second)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	// The grandchild holds the server's stderr and outlives SIGTERM.
	script := "(trap '' TERM; exec sleep 30) & exec " + bin + " example-server"
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"x": {Command: "/bin/sh", Args: []string{"-c", script}}})
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, StopGrace: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	rec := actorstest.Record(t, sup)
	_, ready := rec.WaitState(ctx, 0, "x", messages.StateReady)
	if err := syscall.Kill(ready.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{})
	mark := rec.Len()
	actorstest.Send(t, sup, actorstest.Config, &messages.FileChanged{})
	rec.WaitState(ctx, mark, "x", messages.StateStopped)
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if testkit.ProcessAlive(ready.PID) {
		t.Fatalf("server process %d alive after Close", ready.PID)
	}
}
