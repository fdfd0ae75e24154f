package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// benchResync: a fleet of -servers of which -failed have a command path
// that does not exist yet, so they fail and back off. Then the paths are
// created (symlinks to the binary) and POST /api/v1/resync is sent: the
// time until the failed ones are back, against the slowest and the sum of
// their own starts (from their starting and tools.changed events). A
// parallel resync takes about the slowest start per wave of MaxConnects; a
// serial one would take the sum.
func (h *harness) benchResync(ctx context.Context) (string, error) {
	var answer, lastUp, slowest, sum sample
	var waves int
	for rep := range h.opt.resyncReps {
		a, l, s, su, err := h.resyncOnce(ctx, rep)
		if err != nil {
			return "", err
		}
		answer, lastUp, slowest, sum = append(answer, a), append(lastUp, l), append(slowest, s), append(sum, su)
		progress("resync rep %d: answer %s ms, slowest start %s ms, sum %s ms", rep, ms(a), ms(s), ms(su))
	}
	waves = (h.opt.failed + h.conc - 1) / h.conc
	h.samples["resync"] = map[string]any{
		"servers": h.opt.servers, "failed": h.opt.failed, "max_connects": h.conc,
		"resync_answer_ms": answer.msList(), "last_ready_ms": lastUp.msList(), "slowest_start_ms": slowest.msList(), "sum_of_starts_ms": sum.msList(),
	}
	var t table
	t.head = []string{fmt.Sprintf("resync of %d failed servers in a fleet of %d (%d runs)", h.opt.failed, h.opt.servers, h.opt.resyncReps), "min / median / max ms"}
	t.add("POST /api/v1/resync → answer (every retried server settled)", answer.mmm())
	t.add("POST → last retried server's tools on /api/v1/events", lastUp.mmm())
	t.add("slowest single start among them (starting → tools.changed)", slowest.mmm())
	t.add("sum of their starts (what a serial resync would take at least)", sum.mmm())
	ratio := float64(lastUp.median()) / float64(slowest.median())
	serial := float64(lastUp.median()) / float64(sum.median())
	// Parallel: nearer the slowest start than the sum of the starts.
	parallel := lastUp.median() < (slowest.median()+sum.median())/2
	body := t.String() + fmt.Sprintf("\nMedian resync / slowest start = %.2f (%d connects at once: %d failed servers are %d wave(s)); resync / sum of starts = %.2f. Target: parallel (nearer the slowest start than the sum), not serial: %s.\n",
		ratio, h.conc, h.opt.failed, waves, serial, verdict(parallel))
	return body + commandLine("resync", fmt.Sprintf("-servers %d -failed %d -resync-reps %d", h.opt.servers, h.opt.failed, h.opt.resyncReps)), nil
}

// resyncOnce is one run of benchResync with its own fleet and mcpvisor:
// it waits for the healthy servers to be up and the failing ones to have
// failed, creates the failing ones' paths and times POST /api/v1/resync.
// It returns the time to the answer and to the last retried server's
// tools, and the slowest and the sum of their own starts.
func (h *harness) resyncOnce(ctx context.Context, rep int) (answer, lastUp, slowest, sum time.Duration, err error) {
	late := filepath.Join(h.work, fmt.Sprintf("late%d", rep))
	f := exampleFleet(h.bin, "r", h.opt.servers-h.opt.failed)
	var failing []string
	for i := range h.opt.failed {
		name := fmt.Sprintf("late%02d", i)
		failing = append(failing, name)
		f[name] = entry{Command: filepath.Join(late, fmt.Sprintf("bin%02d", i)), Args: []string{"example-server"}}
	}
	cfg := filepath.Join(h.work, fmt.Sprintf("resync%d.json", rep))
	if err = f.write(cfg); err != nil {
		return
	}
	v, _, err := h.startVisor(ctx, cfg, nil)
	if err != nil {
		return
	}
	defer v.stop()
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if _, err = v.log.waitAll(wctx, 0, f.without(failing...).names(), toolsUp); err != nil {
		return
	}
	if _, err = v.log.waitAll(wctx, 0, failing, func(e event, s string) bool { return e.stateTo(s, messages.StateFailed) }); err != nil {
		return
	}
	// Fix the paths only while no backoff retry is due within 1.5 s (or
	// none is scheduled: crash loop), so that the resync, not a timer,
	// brings them back.
	if err = waitNoRetryDue(wctx, v, failing); err != nil {
		return
	}
	for i := range h.opt.failed {
		if err = symlink(h.bin, filepath.Join(late, fmt.Sprintf("bin%02d", i))); err != nil {
			return
		}
	}
	defer os.RemoveAll(late)
	mark := v.log.mark()
	t0 := time.Now()
	ans, err := v.resync(wctx)
	answer = time.Since(t0)
	if err != nil {
		return
	}
	if !ans.Complete {
		err = fmt.Errorf("resync incomplete: %s", ans.Note)
		return
	}
	for _, o := range ans.Outcomes {
		if o.State != messages.StateReady {
			err = fmt.Errorf("resync left %s %s: %s", o.Server, o.State, o.Error)
			return
		}
	}
	ups, err := v.log.waitAll(wctx, mark, failing, toolsUp)
	if err != nil {
		return
	}
	starts, err := v.log.waitAll(wctx, mark, failing, func(e event, s string) bool { return e.stateTo(s, messages.StateStarting) })
	if err != nil {
		return
	}
	for _, name := range failing {
		lastUp = max(lastUp, ups[name].At.Sub(t0))
		d := ups[name].Time.Sub(starts[name].Time)
		slowest = max(slowest, d)
		sum += d
	}
	return
}

// waitNoRetryDue polls v's status every 50 ms until none of the failing
// servers has a backoff retry due within 1.5 s (or has none scheduled:
// crash loop), so that when their paths are fixed, the resync, not a
// timer, brings them back.
func waitNoRetryDue(ctx context.Context, v *visor, failing []string) error {
	for tries := 0; ; tries++ {
		st, err := v.status(ctx)
		if err != nil {
			return err
		}
		quiet := true
		for _, s := range st.Servers {
			if slices.Contains(failing, s.Name) {
				if s.State != messages.StateFailed || (!s.NextRetry.IsZero() && time.Until(s.NextRetry) < 1500*time.Millisecond) {
					quiet = false
				}
			}
		}
		if quiet {
			return nil
		}
		if tries > 800 {
			return fmt.Errorf("the failed servers never had 1.5 s without a retry due")
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}
