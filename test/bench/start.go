package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchStart: `mcpvisor serve` on -start-servers example servers that
// each wait -start-delay before their handshake, from its launch until a
// client has the whole catalog, against a bare go-sdk client starting the
// same servers all at once; then -start-big servers with no delay against
// the raw bound (MaxConnects at once). Each serve runs twice on the same
// empty XDG_CACHE_HOME: the second run starts with whatever the first
// left in the catalog cache (warm), if mcpvisor keeps one.
func (h *harness) benchStart(ctx context.Context) (string, error) {
	n, delay, reps, big := h.opt.startServers, h.opt.startDelay, h.opt.startReps, h.opt.startBig
	args := []string{"example-server", "--init-delay", delay.String()}
	slow := fleet{}
	for i := range n {
		slow[fmt.Sprintf("s%03d", i)] = entry{Command: h.bin, Args: args}
	}
	var bare, cold, coldFirst, warm, warmFirst sample
	var bigRaw, bigCold, bigWarm, bigRawCPU, bigCPU sample
	bigFleet := exampleFleet(h.bin, "b", big)
	for rep := range reps {
		steps := []string{"bare", "serve", "big-raw", "big-serve"}
		if rep%2 == 1 {
			steps = []string{"serve", "bare", "big-serve", "big-raw"}
		}
		for _, step := range steps {
			switch step {
			case "bare":
				d, _, err := h.rawFleetOf(ctx, n, n, args...)
				if err != nil {
					return "", err
				}
				bare = append(bare, d)
			case "serve":
				c, cf, _, w, wf, err := h.serveTwice(ctx, slow, fmt.Sprintf("start-%d", rep))
				if err != nil {
					return "", err
				}
				cold, coldFirst, warm, warmFirst = append(cold, c), append(coldFirst, cf), append(warm, w), append(warmFirst, wf)
				progress("start rep %d: serve cold %s ms (first list %s), warm %s ms (first list %s)", rep, ms(c), ms(cf), ms(w), ms(wf))
			case "big-raw":
				c0, _ := cpuTime(os.Getpid())
				d, _, err := h.rawFleet(ctx, big, h.conc)
				if err != nil {
					return "", err
				}
				c1, _ := cpuTime(os.Getpid())
				bigRaw, bigRawCPU = append(bigRaw, d), append(bigRawCPU, c1-c0)
			case "big-serve":
				c, _, cpu, w, _, err := h.serveTwice(ctx, bigFleet, fmt.Sprintf("start-big-%d", rep))
				if err != nil {
					return "", err
				}
				bigCold, bigWarm, bigCPU = append(bigCold, c), append(bigWarm, w), append(bigCPU, cpu)
				progress("start rep %d: %d servers, serve cold %s ms, warm %s ms", rep, big, ms(c), ms(w))
			}
			if err := sleep(ctx, 500*time.Millisecond); err != nil {
				return "", err
			}
		}
	}
	h.samples["start"] = map[string]any{
		"servers": n, "init_delay_ms": delay.Milliseconds(), "bare_ms": bare.msList(), "serve_cold_ms": cold.msList(), "serve_cold_first_list_ms": coldFirst.msList(),
		"serve_warm_ms": warm.msList(), "serve_warm_first_list_ms": warmFirst.msList(),
		"big_servers": big, "big_raw_ms": bigRaw.msList(), "big_serve_cold_ms": bigCold.msList(), "big_serve_warm_ms": bigWarm.msList(),
	}
	var t table
	t.head = []string{fmt.Sprintf("%d example servers with --init-delay %s (%d runs each, alternating)", n, delay, reps), "min / median / max ms"}
	t.add(fmt.Sprintf("bare go-sdk client, all %d at once: spawn → last ListTools", n), bare.mmm())
	t.add("serve, empty cache: launch → a client has every server's tools", cold.mmm())
	t.add("… its first tools/list answered (startup wait included)", coldFirst.mmm())
	t.add("serve again, same cache directory (warm if mcpvisor caches catalogs): launch → every server's tools", warm.mmm())
	t.add("… its first tools/list answered", warmFirst.mmm())
	bound := bare.median()*11/10 + 50*time.Millisecond
	body := t.String() + fmt.Sprintf("\nTargets: empty cache at most 1.1 × bare + 50 ms = %s ms: %s (median %s ms, %.2f × bare). Warm under 50 ms: %s (median %s ms).\n",
		ms(bound), verdict(cold.median() <= bound), ms(cold.median()), float64(cold.median())/float64(bare.median()),
		verdict(warm.median() < 50*time.Millisecond), ms(warm.median()))
	var tb table
	tb.head = []string{fmt.Sprintf("%d example servers, no delay (%d runs each, alternating)", big, reps), "min / median / max ms"}
	tb.add(fmt.Sprintf("raw go-sdk bound, %d connects at once", h.conc), bigRaw.mmm())
	tb.add("serve, empty cache: launch → a client has every server's tools", bigCold.mmm())
	tb.add("serve again, same cache directory", bigWarm.mmm())
	tb.add("CPU used by the raw client side (the harness process, utime+stime)", bigRawCPU.mmm())
	tb.add("CPU used by serve until the client had every tool (cold)", bigCPU.mmm())
	ratio := float64(bigCold.median()) / float64(bigRaw.median())
	body += "\n" + tb.String() + fmt.Sprintf("\nTargets: cold within 10%% of the bound: %s (%.3f ×). Warm under 100 ms: %s (median %s ms).\n",
		verdict(ratio <= 1.10), ratio, verdict(bigWarm.median() < 100*time.Millisecond), ms(bigWarm.median()))
	body += commandLine("start", fmt.Sprintf("-start-servers %d -start-delay %s -start-big %d -start-reps %d", n, delay, big, reps))
	return body, nil
}

// serveTwice runs serveUntilFull twice on one fresh cache directory.
func (h *harness) serveTwice(ctx context.Context, f fleet, name string) (cold, coldFirst, coldCPU, warm, warmFirst time.Duration, err error) {
	cfg := filepath.Join(h.work, name+".json")
	if err = f.write(cfg); err != nil {
		return
	}
	cache := filepath.Join(h.work, name+"-cache")
	if err = os.MkdirAll(cache, 0o755); err != nil {
		return
	}
	if cold, coldFirst, coldCPU, err = h.serveUntilFull(ctx, cfg, cache, len(f)); err != nil {
		return
	}
	if err = sleep(ctx, 300*time.Millisecond); err != nil {
		return
	}
	warm, warmFirst, _, err = h.serveUntilFull(ctx, cfg, cache, len(f))
	return
}

// serveUntilFull launches `mcpvisor serve` (stdio) on cfg with
// XDG_CACHE_HOME=cache, connects, and lists tools (again on every
// list_changed) until every one of the n servers' echo tools is listed.
// It returns the time from launch to that list, and to the first list,
// and the CPU serve had used by then.
func (h *harness) serveUntilFull(ctx context.Context, cfg, cache string, n int) (full, first, cpu time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	changed := make(chan struct{}, 1)
	notify := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache)
	t0 := time.Now()
	cs, cmd, err := h.connectStdioCmd(ctx, benchClient(notify), env, h.bin, "serve", "--config", cfg)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("serve: %w", err)
	}
	defer cs.Close()
	for i := 0; ; i++ {
		got, err := echoCount(ctx, cs)
		if err != nil {
			return 0, 0, 0, err
		}
		if i == 0 {
			first = time.Since(t0)
		}
		if got >= n {
			full = time.Since(t0)
			cpu, err = cpuTime(cmd.Process.Pid)
			return full, first, cpu, err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, 0, 0, fmt.Errorf("serve listed %d of %d servers' tools: %w", got, n, ctx.Err())
		}
	}
}

// echoCount counts the servers whose echo tool a gateway session lists.
func echoCount(ctx context.Context, cs *mcp.ClientSession) (int, error) {
	n := 0
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, err
		}
		if strings.HasSuffix(t.Name, "__echo") {
			n++
		}
	}
	return n, nil
}
