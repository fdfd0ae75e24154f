//lint:file-ignore SA1019 the tests exercise sampling, roots and logging, deprecated from protocol 2026-07-28 on (SEP-2577).

package exampleserver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

type progressNote struct {
	token    any
	progress float64
	total    float64
}

func TestProgress_OneNotificationPerStepWithAToken(t *testing.T) {
	t.Parallel()
	for _, pv := range protocols {
		t.Run(pv, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			notes := make(chan progressNote, 64)
			cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					notes <- progressNote{req.Params.ProgressToken, req.Params.Progress, req.Params.Total}
				},
			}, pv)

			// No token: nothing is sent. The next call's notifications are
			// the barrier that proves it.
			if text := mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3}})); text != "sent 0 progress notifications (the call had no progressToken)" {
				t.Fatalf("without a token: %q", text)
			}
			for round, steps := range []int{5, 1} {
				token := fmt.Sprintf("tok-%d", round)
				params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": steps}}
				params.SetProgressToken(token)
				if text := mustText(t, call(t, ctx, cs, params)); text != fmt.Sprintf("sent %d progress notifications", steps) {
					t.Fatalf("with a token: %q", text)
				}
				for i := 1; i <= steps; i++ {
					got := receive(t, ctx, notes, "progress notification")
					if diff := cmp.Diff(progressNote{token, float64(i), float64(steps)}, got, cmp.AllowUnexported(progressNote{})); diff != "" {
						t.Fatalf("round %d notification %d (-want +got):\n%s", round, i, diff)
					}
				}
			}
		})
	}
}

// With perSecond, a notification goes out on each tick of a ticker at
// that rate, on the server's clock, and the call answers after the last.
func TestProgress_PerSecondSendsOnePerTick(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	trap := clock.Trap().NewTicker("exampleserver", "progress")
	defer trap.Close()
	notes := make(chan progressNote, 8)
	cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true, Clock: clock}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			notes <- progressNote{req.Params.ProgressToken, req.Params.Progress, req.Params.Total}
		},
	}, legacy)
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3, "perSecond": 10}}
	params.SetProgressToken("paced")
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	ticker := trap.MustWait(ctx)
	if ticker.Duration != 100*time.Millisecond {
		t.Fatalf("ticker every %s, want 100ms for 10 a second", ticker.Duration)
	}
	ticker.MustRelease(ctx)
	for i := 1; i <= 3; i++ {
		select {
		case <-answered:
			t.Fatalf("answered before tick %d", i)
		default:
		}
		clock.Advance(100 * time.Millisecond).MustWait(ctx)
		if got := receive(t, ctx, notes, "progress notification"); got.progress != float64(i) {
			t.Fatalf("tick %d brought progress %v", i, got.progress)
		}
	}
	if text := mustText(t, receive(t, ctx, answered, "the answer")); text != "sent 3 progress notifications" {
		t.Fatalf("answer %q", text)
	}
}

// logs records the levels of notifications/message a client receives.
func logs() (chan mcp.LoggingLevel, *mcp.ClientOptions) {
	ch := make(chan mcp.LoggingLevel, 64)
	return ch, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		if req.Params.Logger != "w" || req.Params.Data != "hello" {
			ch <- "unexpected " + mcp.LoggingLevel(fmt.Sprintf("%+v", req.Params))
			return
		}
		ch <- req.Params.Level
	}}
}

func receiveLevels(t *testing.T, ctx context.Context, ch chan mcp.LoggingLevel, want ...mcp.LoggingLevel) {
	t.Helper()
	var got []mcp.LoggingLevel
	for range want {
		got = append(got, receive(t, ctx, ch, "log message"))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("log levels (-want +got):\n%s", diff)
	}
}

// On the legacy protocol the level is the session's, set with
// logging/setLevel; before any setLevel nothing is sent.
func TestLog_HonoursSetLevel(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	got, copts := logs()
	cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, copts, legacy)
	if cs.InitializeResult().Capabilities.Logging == nil {
		t.Fatal("logging capability not advertised")
	}
	logAll := &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "hello"}}
	if text := mustText(t, call(t, ctx, cs, logAll)); text != "logged at 8 levels" {
		t.Fatalf("log: %q", text)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatalf("setLevel: %v", err)
	}
	mustText(t, call(t, ctx, cs, logAll))
	receiveLevels(t, ctx, got, "warning", "error", "critical", "alert", "emergency")

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatalf("setLevel: %v", err)
	}
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "hello", "level": "info"}}))
	receiveLevels(t, ctx, got, "info")

	if text, isErr := resultText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "hello", "level": "loud"}})); !isErr {
		t.Fatalf("an unknown level was accepted: %s", text)
	}
}

// On 2026-07-28 the level travels with each request, in _meta.
func TestLog_HonoursTheRequestLevelOnStatelessProtocol(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	got, copts := logs()
	cs := serve(t, ctx, exampleserver.Options{Name: "w", TwoWay: true}, copts, stateless)
	mustText(t, call(t, ctx, cs, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "hello"}}))
	params := &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "hello"}, Meta: mcp.Meta{"io.modelcontextprotocol/logLevel": "critical"}}
	mustText(t, call(t, ctx, cs, params))
	receiveLevels(t, ctx, got, "critical", "alert", "emergency")
}
