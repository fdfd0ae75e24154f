package main

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSession is one server connected by the go-sdk client directly, with
// no supervisor: the baseline every mcpvisor figure is compared with.
type rawSession struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

// rawStart spawns bin with args (and env; nil: the harness's), connects
// (initialize) and lists the tools, as mcpvisor does for a stdio server,
// and returns how long that took.
func (h *harness) rawStart(ctx context.Context, env []string, bin string, args ...string) (*rawSession, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	isolate(cmd)
	// The same client options that change the protocol as mcpvisor's: a
	// tool list-changed handler, which makes Connect also open a
	// subscriptions/listen stream with servers that speak 2026-07-28 (the
	// example server does), as a supervisor that follows tool changes must.
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpvisor-bench-raw", Version: "0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	})
	t0 := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if cmd.Process != nil {
		h.reaper.track(cmd.Process.Pid)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("raw connect %s: %w", bin, err)
	}
	res, err := cs.ListTools(ctx, nil)
	took := time.Since(t0)
	if err != nil || len(res.Tools) == 0 {
		_ = cs.Close()
		return nil, 0, fmt.Errorf("raw list tools %s: %v (%d tools)", bin, err, toolCount(res))
	}
	return &rawSession{cs: cs, cmd: cmd}, took, nil
}

func toolCount(r *mcp.ListToolsResult) int {
	if r == nil {
		return 0
	}
	return len(r.Tools)
}

// close closes the session: stdin closes, the server exits and is reaped.
func (s *rawSession) close() { _ = s.cs.Close() }

// rawFleet connects n example servers with at most conc connects at once
// (as mcpvisor's MaxConnects does) and returns the time until the last one
// has listed its tools, and each one's own spawn + connect + list. Every
// session is closed before it returns.
func (h *harness) rawFleet(ctx context.Context, n, conc int) (time.Duration, sample, error) {
	return h.rawFleetOf(ctx, n, conc, "example-server")
}

// rawFleetOf is rawFleet with the example server's arguments.
func (h *harness) rawFleetOf(ctx context.Context, n, conc int, args ...string) (time.Duration, sample, error) {
	sessions := make([]*rawSession, n)
	each := make(sample, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Go(func() {
			for i := range next {
				sessions[i], each[i], errs[i] = h.rawStart(ctx, nil, h.bin, args...)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	took := time.Since(t0)
	var firstErr error
	var closing sync.WaitGroup
	for i, s := range sessions {
		if s != nil {
			closing.Go(s.close)
		}
		if errs[i] != nil && firstErr == nil {
			firstErr = errs[i]
		}
	}
	closing.Wait()
	return took, each, firstErr
}
