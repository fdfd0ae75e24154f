package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpvisor/mcpvisor/messages"
)

// benchCold: -cold-servers example servers, from mcpvisor's process start
// until every server's tools are visible, against the same servers
// connected by the raw go-sdk client with mcpvisor's default MaxConnects
// (max(8, 4*NumCPU)) at once, alternating. Each mcpvisor run then ends with
// the close measurement: SIGTERM to mcpvisor until every server process is
// gone.
func (h *harness) benchCold(ctx context.Context) (string, error) {
	n, reps := h.opt.coldServers, h.opt.coldReps
	withRaw := h.opt.runs("cold")
	var raw, cold, internal, closeAll, exit, rawCPU, visorCPU, rawEach, visorEach, harnessCPU sample
	for rep := range reps {
		order := []string{"raw", "mcpvisor"}
		if rep%2 == 1 {
			order = []string{"mcpvisor", "raw"}
		}
		for _, who := range order {
			if who == "raw" {
				if !withRaw {
					continue
				}
				c0, _ := cpuTime(os.Getpid())
				d, each, err := h.rawFleet(ctx, n, h.conc)
				if err != nil {
					return "", err
				}
				rawEach = append(rawEach, each...)
				c1, _ := cpuTime(os.Getpid())
				raw, rawCPU = append(raw, d), append(rawCPU, c1-c0)
				progress("cold rep %d: raw go-sdk %s ms", rep, ms(d))
			} else {
				hc0, _ := cpuTime(os.Getpid())
				c, in, cpu, each, cl, ex, err := h.coldOnce(ctx, n, rep)
				hc1, _ := cpuTime(os.Getpid())
				harnessCPU = append(harnessCPU, hc1-hc0)
				if err != nil {
					return "", err
				}
				visorEach = append(visorEach, each...)
				cold, internal, closeAll, exit = append(cold, c), append(internal, in), append(closeAll, cl), append(exit, ex)
				visorCPU = append(visorCPU, cpu)
				progress("cold rep %d: mcpvisor %s ms (internal %s ms), close %s ms", rep, ms(c), ms(in), ms(cl))
			}
			if err := sleep(ctx, time.Second); err != nil {
				return "", err
			}
		}
	}
	h.samples["cold"] = map[string]any{
		"servers": n, "max_connects": h.conc, "raw_ms": raw.msList(), "mcpvisor_from_spawn_ms": cold.msList(),
		"mcpvisor_internal_ms": internal.msList(), "raw_cpu_ms": rawCPU.msList(), "mcpvisor_cpu_ms": visorCPU.msList(), "close_all_gone_ms": closeAll.msList(), "close_exit_ms": exit.msList(),
	}
	var body string
	if withRaw {
		var t table
		t.head = []string{fmt.Sprintf("cold start of %d stdio example servers (%d runs each, alternating)", n, reps), "min / median / max ms"}
		t.add(fmt.Sprintf("raw go-sdk, %d connects at once (spawn + Connect + ListTools)", h.conc), raw.mmm())
		t.add("mcpvisor: process start → last server's tools on /api/v1/events", cold.mmm())
		t.add("mcpvisor: config.loaded → last tools.changed (its own clock; no process start-up)", internal.mmm())
		t.add("one server's start inside the raw run (spawn + Connect + ListTools)", rawEach.mmm())
		t.add("one server's start inside mcpvisor's run (its starting → ready events)", visorEach.mmm())
		t.add("CPU used by the raw go-sdk client side (the harness process, utime+stime)", rawCPU.mmm())
		t.add("CPU used by mcpvisor from its start until the last server was ready", visorCPU.mmm())
		t.add("CPU used by the harness during an mcpvisor run (following its events, then close)", harnessCPU.mmm())
		ratio := float64(cold.median()) / float64(raw.median())
		ratioIn := float64(internal.median()) / float64(raw.median())
		body += t.String() + fmt.Sprintf("\nRatio of medians mcpvisor / raw bound: %.3f from process start, %.3f from config.loaded. Target: within 10%% of the bound: %s.\n",
			ratio, ratioIn, verdict(ratio <= 1.10))
		body += commandLine("cold", fmt.Sprintf("-cold-servers %d -cold-reps %d", n, reps))
	}
	if h.opt.runs("close") {
		var t table
		t.head = []string{fmt.Sprintf("close with %d ready stdio servers (%d runs)", n, reps), "min / median / max ms"}
		t.add("SIGTERM to mcpvisor → every server process gone", closeAll.mmm())
		t.add("SIGTERM to mcpvisor → mcpvisor exited", exit.mmm())
		body += "\n" + t.String() + fmt.Sprintf("\nTarget: every server gone in under 2 s: %s (max %s ms).\n", verdict(closeAll.max() < 2*time.Second), ms(closeAll.max()))
		body += commandLine("close", fmt.Sprintf("-cold-servers %d -cold-reps %d", n, reps))
	}
	return body, nil
}

// coldOnce starts mcpvisor on n servers, waits for all of them, then stops
// it and times how long every server process takes to go.
func (h *harness) coldOnce(ctx context.Context, n, rep int) (cold, internal, cpu time.Duration, each sample, closeAll, exit time.Duration, err error) {
	f := exampleFleet(h.bin, "k", n)
	cfg := filepath.Join(h.work, fmt.Sprintf("cold%d.json", rep))
	if err = f.write(cfg); err != nil {
		return
	}
	v, t0, err := h.startVisor(ctx, cfg, nil)
	if err != nil {
		return
	}
	defer v.kill()
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	ups, err := v.log.waitAll(wctx, 0, f.names(), toolsUp)
	if err != nil {
		err = fmt.Errorf("cold start of %d: %w (stderr: %s)", n, err, v.stderr)
		return
	}
	if cpu, err = cpuTime(v.pid()); err != nil {
		return
	}
	var lastAt, lastTime time.Time
	for _, e := range ups {
		if e.At.After(lastAt) {
			lastAt = e.At
		}
		if e.Time.After(lastTime) {
			lastTime = e.Time
		}
	}
	loaded, _, err := v.log.wait(wctx, 0, func(e event) bool { return e.Type == "config.loaded" })
	if err != nil {
		return
	}
	cold, internal = lastAt.Sub(t0), lastTime.Sub(loaded.Time)
	starts, err := v.log.waitAll(wctx, 0, f.names(), func(e event, s string) bool { return e.stateTo(s, messages.StateStarting) })
	if err != nil {
		return
	}
	readies, err := v.log.waitAll(wctx, 0, f.names(), func(e event, s string) bool { return e.stateTo(s, messages.StateReady) })
	if err != nil {
		return
	}
	for name, r := range readies {
		each = append(each, r.Time.Sub(starts[name].Time))
	}

	st, err := v.status(ctx)
	if err != nil {
		return
	}
	var pids []int
	for _, s := range st.Servers {
		pids = append(pids, s.PID)
	}
	closeAll, exit, err = h.timeClose(ctx, v, pids)
	return
}

// timeClose opens a pidfd on every server, sends SIGTERM to mcpvisor, and
// returns when the last server process exited and when mcpvisor did.
func (h *harness) timeClose(ctx context.Context, v *visor, pids []int) (allGone, exited time.Duration, err error) {
	var pending []unix.PollFd
	var opened []int
	defer func() {
		for _, fd := range opened {
			unix.Close(fd)
		}
	}()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			return 0, 0, fmt.Errorf("pidfd_open %d: %w (server gone before close?)", pid, err)
		}
		opened = append(opened, fd)
		pending = append(pending, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	t0 := time.Now()
	if err := v.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, 0, err
	}
	deadline := t0.Add(30 * time.Second)
	for len(pending) > 0 {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return 0, 0, fmt.Errorf("%d of %d server processes still alive 30s after SIGTERM", len(pending), len(pids))
		}
		_, err := unix.Poll(pending, int(min(left, time.Second).Milliseconds())+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return 0, 0, fmt.Errorf("poll pidfds: %w", err)
		}
		still := pending[:0]
		for _, p := range pending {
			if p.Revents&unix.POLLIN == 0 {
				p.Revents = 0
				still = append(still, p)
			}
		}
		pending = still
	}
	allGone = time.Since(t0)
	select {
	case <-v.exited:
	case <-time.After(time.Until(deadline)):
		return allGone, 0, errors.New("mcpvisor still running 30s after SIGTERM")
	}
	return allGone, time.Since(t0), nil
}
