package main

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// benchCrash: kill -9 of a ready server; the time until its tools are
// visible again, minus the backoff mcpvisor chose and minus the server's
// own start-up.
//
// mcpvisor's CLI has no backoff flag and its default backoff is 1 s with
// up to 20% jitter, so the wait it chose is read from the failed event:
// nextRetry minus the event's time. The event is stamped a few
// microseconds after the clock reading nextRetry was computed from, so the
// subtracted backoff is that much too small and the overhead that much too
// large: a conservative error. Each kill hits a different server, so every
// retry is a first retry (1 s) and no crash-loop budget is spent twice.
func (h *harness) benchCrash(ctx context.Context) (string, error) {
	n, crashes := h.opt.servers, h.opt.crashes
	f := exampleFleet(h.bin, "c", n)
	v, err := h.startFleet(ctx, "crash.json", f)
	if err != nil {
		return "", err
	}
	defer v.stop()
	st, err := v.status(ctx)
	if err != nil {
		return "", err
	}
	pids := map[string]int{}
	for _, s := range st.Servers {
		pids[s.Name] = s.PID
	}
	names := f.names()
	var fig crashFigures
	for i := range crashes {
		s, d, err := h.rawStart(ctx, nil, h.bin, "example-server")
		if err != nil {
			return "", err
		}
		s.close()
		fig.startups = append(fig.startups, d)
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return "", err
		}

		name := names[i]
		pid := pids[name]
		if pid <= 0 || !alive(pid) {
			return "", fmt.Errorf("crash %d: %s has no live pid (%d)", i, name, pid)
		}
		mark := v.log.mark()
		t0 := time.Now()
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return "", fmt.Errorf("kill %d: %w", pid, err)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		failed, next, err := v.log.wait(wctx, mark, func(e event) bool { return e.stateTo(name, messages.StateFailed) })
		if err == nil && failed.State.NextRetry.IsZero() {
			err = fmt.Errorf("%s failed without a retry scheduled: %s", name, failed.State.Reason)
		}
		var retry, up event
		if err == nil {
			retry, next, err = v.log.wait(wctx, next, func(e event) bool { return e.stateTo(name, messages.StateStarting) })
		}
		if err == nil {
			up, _, err = v.log.wait(wctx, next, func(e event) bool { return e.toolsUp(name) })
		}
		cancel()
		if err != nil {
			return "", fmt.Errorf("crash %d (%s): %w", i, name, err)
		}
		fig.total = append(fig.total, up.At.Sub(t0))
		fig.backoff = append(fig.backoff, failed.State.NextRetry.Sub(failed.Time))
		fig.detect = append(fig.detect, failed.At.Sub(t0))
		fig.retryToReady = append(fig.retryToReady, up.Time.Sub(retry.Time))
		fig.rest = append(fig.rest, retry.Time.Sub(failed.State.NextRetry))
	}
	return h.crashReport(fig), nil
}

// crashFigures are what benchCrash measured, per kill: the whole time to
// ready again, the backoff mcpvisor chose and the breakdown by its own
// event times, and the server's own start-up measured before the kill.
type crashFigures struct {
	total, backoff, startups   sample
	detect, rest, retryToReady sample
}

// crashReport records benchCrash's samples and prints its table: the
// time to ready again, the overhead left after the backoff and the median
// start-up, and the breakdown, with the verdict on the overhead target.
func (h *harness) crashReport(fig crashFigures) string {
	n, crashes := h.opt.servers, h.opt.crashes
	su := fig.startups.median()
	overhead := make(sample, len(fig.total))
	for i := range fig.total {
		overhead[i] = fig.total[i] - fig.backoff[i] - su
	}
	h.samples["crash"] = map[string]any{
		"servers": n, "crash_to_ready_ms": fig.total.msList(), "backoff_ms": fig.backoff.msList(),
		"raw_startup_ms": fig.startups.msList(), "overhead_ms": overhead.msList(),
	}
	var t table
	t.head = []string{fmt.Sprintf("figure (%d kills, fleet of %d)", crashes, n), "min / median / p99 ms"}
	t.add("kill -9 → its tools on /api/v1/events again", fig.total.mmp())
	t.add("backoff mcpvisor chose (failed event: nextRetry − time)", fig.backoff.mmp())
	t.add("its own start-up: raw go-sdk spawn + Connect + ListTools", fig.startups.mmp())
	t.add(fmt.Sprintf("**overhead** = total − backoff − median start-up (%s)", ms(su)), "**"+overhead.mmp()+"**")
	t.add("breakdown: kill → failed event read (detection)", fig.detect.mmp())
	t.add("breakdown: nextRetry → retry's starting event (timer lateness)", fig.rest.mmp())
	t.add("breakdown: starting → tools.changed (mcpvisor's spawn + connect + list)", fig.retryToReady.mmp())
	med := overhead.median()
	body := t.String() + fmt.Sprintf("\nTarget: overhead under 10 ms: %s (median %s ms, p99 %s ms).\n", verdict(med < 10*time.Millisecond), ms(med), ms(overhead.p99()))
	return body + commandLine("crash", fmt.Sprintf("-servers %d -crashes %d", n, crashes))
}
