package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// benchIdle: CPU of the mcpvisor process over -idle with -servers ready
// servers and nothing changing (utime+stime from /proc/PID/stat), and its
// resident memory per server: (VmRSS with n servers − VmRSS with none) / n.
// The servers' own CPU and memory are not counted.
func (h *harness) benchIdle(ctx context.Context) (string, error) {
	n := h.opt.servers
	const settle = 3 * time.Second

	// mcpvisor with no servers: the RSS baseline, and its idle CPU over a
	// short window for comparison.
	empty := filepath.Join(h.work, "idle-empty.json")
	if err := (fleet{}).write(empty); err != nil {
		return "", err
	}
	v0, _, err := h.startVisor(ctx, empty, nil)
	if err != nil {
		return "", err
	}
	if err := sleep(ctx, settle); err != nil {
		v0.stop()
		return "", err
	}
	rss0, err := rss(v0.pid())
	if err != nil {
		v0.stop()
		return "", err
	}
	emptyWindow := min(h.opt.idle, 20*time.Second)
	cpu0, wall0, err := cpuOver(ctx, v0.pid(), emptyWindow)
	v0.stop()
	if err != nil {
		return "", err
	}

	v, err := h.startFleet(ctx, "idle.json", exampleFleet(h.bin, "i", n))
	if err != nil {
		return "", err
	}
	defer v.stop()
	if err := sleep(ctx, settle); err != nil {
		return "", err
	}
	mark := v.log.mark()
	rssStart, err := rss(v.pid())
	if err != nil {
		return "", err
	}
	cpu, wall, err := cpuOver(ctx, v.pid(), h.opt.idle)
	if err != nil {
		return "", err
	}
	rssN, err := rss(v.pid())
	if err != nil {
		return "", err
	}
	events := len(v.log.since(mark))

	pct := 100 * cpu.Seconds() / wall.Seconds()
	pct0 := 100 * cpu0.Seconds() / wall0.Seconds()
	perServer := (rssN - rss0) / int64(n)
	h.samples["idle"] = map[string]any{
		"servers": n, "window_s": wall.Seconds(), "cpu_s": cpu.Seconds(), "cpu_pct_of_one_core": pct,
		"empty_window_s": wall0.Seconds(), "empty_cpu_s": cpu0.Seconds(),
		"rss_empty_bytes": rss0, "rss_start_bytes": rssStart, "rss_end_bytes": rssN, "rss_per_server_bytes": perServer,
	}
	var t table
	t.head = []string{"figure", "value"}
	t.add(fmt.Sprintf("CPU of mcpvisor over %s, %d ready servers, nothing changing", wall.Round(time.Second), n),
		fmt.Sprintf("%.2f s = **%.3f%%** of one core", cpu.Seconds(), pct))
	t.add(fmt.Sprintf("CPU of mcpvisor over %s, no servers", wall0.Round(time.Second)), fmt.Sprintf("%.2f s = %.3f%% of one core", cpu0.Seconds(), pct0))
	t.add("events published during the window", fmt.Sprint(events))
	t.add("VmRSS of mcpvisor with no servers", mib(rss0))
	t.add(fmt.Sprintf("VmRSS of mcpvisor with %d ready servers (start / end of the window)", n), mib(rssStart)+" / "+mib(rssN))
	t.add("**RSS per server** = (end − no servers) / "+fmt.Sprint(n), "**"+kib(perServer)+"**")
	body := t.String() + fmt.Sprintf("\nCPU is utime+stime of the mcpvisor process (all threads) from /proc/PID/stat, in %d ms ticks; the servers are not counted. Target: under 0.5%% of one core: %s.\n", 1000/userHZ, verdict(pct < 0.5))
	return body + commandLine("idle", fmt.Sprintf("-servers %d -idle %s", n, h.opt.idle)), nil
}

// cpuOver returns the CPU pid used during a window of length d.
func cpuOver(ctx context.Context, pid int, d time.Duration) (cpu, wall time.Duration, err error) {
	c0, err := cpuTime(pid)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if err := sleep(ctx, d); err != nil {
		return 0, 0, err
	}
	c1, err := cpuTime(pid)
	if err != nil {
		return 0, 0, err
	}
	return c1 - c0, time.Since(t0), nil
}
