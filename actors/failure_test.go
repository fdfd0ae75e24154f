package actors_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// noEnviron keeps the test process's variables out of the redactor, so
// that reasons read the same on every machine.
func noEnviron() []string { return nil }

// waitFailed waits for the SupervisorFailed event and for Done.
func waitFailed(ctx context.Context, t *testing.T, sup *actors.Supervisor, rec *actorstest.Recorder) *messages.SupervisorFailed {
	t.Helper()
	_, ev := rec.WaitFor(ctx, 0, "supervisor.failed", func(e messages.Event) bool { _, ok := e.(*messages.SupervisorFailed); return ok })
	select {
	case <-sup.Done():
	case <-ctx.Done():
		t.Fatal("SupervisorFailed published but Done not closed")
	}
	return ev.(*messages.SupervisorFailed)
}

// closeWithin closes sup, failing the test if Close outlives ctx.
func closeWithin(ctx context.Context, t *testing.T, sup *actors.Supervisor) {
	t.Helper()
	closed := make(chan error, 1)
	go func() { closed <- sup.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}

// A panic in the fleet actor (here a malformed injected message: a nil
// *ServerFailed) used to leave a silent zombie: Status said ready, calls
// and resyncs blocked until the caller's deadline. Now it ends the
// Supervisor loudly: a SupervisorFailed event naming the actor and the
// panic, Done closed, Err set, every call failing at once with Err,
// Status saying so, no tools, every server stopped, and Close still
// returning.
func TestSupervisor_FleetActorPanicEndsItLoudly(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	f := newFleet(t, echoServers("alpha"))
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "alpha")}, Environ: noEnviron})
	rec.WaitState(ctx, 0, "alpha", messages.StateReady)
	f.mu.Lock()
	server := f.live["alpha"]
	f.mu.Unlock()

	actorstest.Send(t, sup, actorstest.Fleet, (*messages.ServerFailed)(nil))

	ev := waitFailed(ctx, t, sup, rec)
	if ev.Actor != "fleet" || !strings.Contains(ev.Reason, "nil pointer dereference") || !strings.Contains(ev.Reason, "*messages.ServerFailed") {
		t.Errorf("event = %+v, want the fleet actor, the panic and the message it hit", ev)
	}
	err := sup.Err()
	if !errors.Is(err, actors.ErrFailed) || !strings.Contains(err.Error(), "the fleet actor failed: panic: ") {
		t.Fatalf("Err = %v, want ErrFailed naming the fleet actor", err)
	}
	if _, err := sup.CallTool(ctx, "alpha__echo", nil); !errors.Is(err, actors.ErrFailed) {
		t.Errorf("CallTool = %v, want Err at once", err)
	}
	if _, _, err := sup.Resync(ctx, false); !errors.Is(err, actors.ErrFailed) {
		t.Errorf("Resync = %v, want Err at once", err)
	}
	if st := sup.Status(); st.Failed != err.Error() {
		t.Errorf("Status.Failed = %q, want %q", st.Failed, err.Error())
	}
	if tools := sup.Tools(); len(tools) != 0 {
		t.Errorf("Tools = %v, want none from a failed supervisor", tools)
	}
	// The server is stopped without waiting for Close: its session ends.
	waited := make(chan error, 1)
	go func() { waited <- server.Wait() }()
	select {
	case <-waited:
	case <-ctx.Done():
		t.Fatal("the server's session is still open after the failure")
	}
	closeWithin(ctx, t, sup)
	if !errors.Is(sup.Err(), actors.ErrFailed) {
		t.Errorf("after Close, Err = %v, want the failure kept", sup.Err())
	}
}

// A panic in the embedder's LookupEnv runs on the config actor's read
// goroutine, where it would have killed the whole process. It fails the
// config actor instead, which ends the Supervisor loudly; the reason is
// redacted like everything else.
func TestSupervisor_PanickingLookupEnvFailsTheConfigActor(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	path := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, path, map[string]any{"alpha": map[string]any{"command": "in-memory", "env": map[string]any{"K": "${BOOM}"}}})
	f := newFleet(t, echoServers("alpha"))
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{
		ConfigPaths: []string{path},
		Environ:     func() []string { return []string{"API_KEY=sekrit-token-4242"} },
		LookupEnv: func(name string) (string, bool) {
			if name == "BOOM" {
				panic("vault unreachable, last token sekrit-token-4242")
			}
			return "", false
		},
	})
	ev := waitFailed(ctx, t, sup, rec)
	if ev.Actor != "config" || !strings.Contains(ev.Reason, "reading the config files: vault unreachable") {
		t.Errorf("event = %+v, want the config actor and the panic", ev)
	}
	if strings.Contains(ev.Reason, "sekrit-token-4242") || strings.Contains(sup.Err().Error(), "sekrit-token-4242") {
		t.Errorf("the reason shows an inherited secret: %q", ev.Reason)
	}
	if _, err := sup.CallTool(ctx, "alpha__echo", nil); !errors.Is(err, actors.ErrFailed) {
		t.Errorf("CallTool = %v, want ErrFailed", err)
	}
	closeWithin(ctx, t, sup)
}

// An Options.Environ that panics is an error: at Start, and for one
// server's start later on (that server fails and retries; the Supervisor
// and the process live on).
func TestSupervisor_PanickingEnvironIsAnError(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	_, err := actors.Start(actors.Options{ConfigPaths: []string{"x.json"}, Environ: func() []string { panic("no env") }})
	if err == nil || !strings.Contains(err.Error(), "Options.Environ") {
		t.Fatalf("Start = %v, want an error naming Options.Environ", err)
	}

	calls := 0
	f := newFleet(t, echoServers("alpha"))
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{
		ConfigPaths: []string{configFor(t, "alpha")},
		Environ: func() []string {
			calls++ // Start's call, then the session's (one at a time)
			if calls > 1 {
				panic("no env")
			}
			return nil
		},
	})
	_, failed := rec.WaitState(ctx, 0, "alpha", messages.StateFailed)
	if !strings.Contains(failed.Error, "Options.Environ") || !strings.Contains(failed.Error, "no env") {
		t.Errorf("failure %q, want the panicking Environ named", failed.Error)
	}
	if err := sup.Err(); err != nil {
		t.Errorf("Err = %v: one server's failure must not end the Supervisor", err)
	}
}

// Close keeps its bound after a failure even with a call in flight: the
// call returns Err.
func TestSupervisor_FailureEndsCallsInFlight(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	slow := func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
		srv.AddTool(tool("wait", "w"), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			close(entered)
			<-release
			return &mcp.CallToolResult{}, nil
		})
		return srv
	}
	f := newFleet(t, map[string]func() *mcp.Server{"slow": slow})
	sup, rec := startInMemory(t, quartz.NewMock(t), f, actors.Options{ConfigPaths: []string{configFor(t, "slow")}, Environ: noEnviron})
	rec.WaitState(ctx, 0, "slow", messages.StateReady)
	called := make(chan error, 1)
	go func() {
		_, err := sup.CallTool(ctx, "slow__wait", nil)
		called <- err
	}()
	<-entered
	actorstest.Send(t, sup, actorstest.Fleet, (*messages.DesiredState)(nil))
	waitFailed(ctx, t, sup, rec)
	select {
	case err := <-called:
		if !errors.Is(err, actors.ErrFailed) {
			t.Fatalf("call in flight = %v, want ErrFailed", err)
		}
	case <-ctx.Done():
		t.Fatal("the call in flight still waits")
	}
	closeWithin(ctx, t, sup)
}

// Done and Err after a plain Close.
func TestSupervisor_CloseEndsDone(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	sup, _ := startInMemory(t, quartz.NewMock(t), newFleet(t, nil), actors.Options{ConfigPaths: []string{filepath.Join(t.TempDir(), "none.json")}})
	if sup.Err() != nil {
		t.Fatalf("Err = %v while running", sup.Err())
	}
	select {
	case <-sup.Done():
		t.Fatal("Done closed while running")
	default:
	}
	closeWithin(ctx, t, sup)
	<-sup.Done()
	if !errors.Is(sup.Err(), actors.ErrClosed) || errors.Is(sup.Err(), actors.ErrFailed) {
		t.Fatalf("Err = %v, want ErrClosed", sup.Err())
	}
}
