package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// startFleet writes f to a config file and starts mcpvisor on it, then
// waits until every server's tools are visible.
func (h *harness) startFleet(ctx context.Context, file string, f fleet) (*visor, error) {
	cfg := filepath.Join(h.work, file)
	if err := f.write(cfg); err != nil {
		return nil, err
	}
	v, _, err := h.startVisor(ctx, cfg, nil, "--debounce", h.opt.debounce.String())
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if _, err := v.log.waitAll(wctx, 0, f.names(), toolsUp); err != nil {
		v.stop()
		return nil, fmt.Errorf("fleet of %d not ready: %w (mcpvisor stderr: %s)", len(f), err, v.stderr)
	}
	return v, nil
}

func toolsUp(e event, server string) bool { return e.toolsUp(server) }

// benchEdit: a config edit adds one server to a fleet of -servers; the time
// from the write to that server's tools arriving on /api/v1/events, minus
// the debounce window and minus the server's own start-up (spawn, connect,
// list tools with the raw go-sdk client, measured between the edits).
func (h *harness) benchEdit(ctx context.Context) (string, error) {
	n, edits := h.opt.servers, h.opt.edits
	base := exampleFleet(h.bin, "s", n)
	v, err := h.startFleet(ctx, "edit.json", base)
	if err != nil {
		return "", err
	}
	defer v.stop()
	cfg := filepath.Join(h.work, "edit.json")
	if err := sleep(ctx, 500*time.Millisecond); err != nil {
		return "", err
	}
	var fig editFigures
	for i := range edits {
		// The server's own start-up, measured right before the edit.
		s, d, err := h.rawStart(ctx, nil, h.bin, "example-server")
		if err != nil {
			return "", err
		}
		s.close()
		fig.startups = append(fig.startups, d)
		if err := sleep(ctx, 2*h.opt.debounce); err != nil {
			return "", err
		}

		name := fmt.Sprintf("new%03d", i)
		mark := v.log.mark()
		t0 := time.Now()
		if err := base.with(fleet{name: {Command: h.bin, Args: []string{"example-server"}}}).write(cfg); err != nil {
			return "", err
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		up, _, err := v.log.wait(wctx, mark, func(e event) bool { return e.toolsUp(name) })
		cancel()
		if err != nil {
			return "", fmt.Errorf("edit %d: %s never ready: %w", i, name, err)
		}
		fig.lat = append(fig.lat, up.At.Sub(t0))
		// Where the time went, from mcpvisor's own event times.
		loaded, starting, ready := editEvents(v.log.since(mark), name)
		if loaded.Seq != 0 && starting.Seq != 0 && ready.Seq != 0 {
			fig.toLoaded = append(fig.toLoaded, loaded.Time.Sub(t0))
			fig.loadedToStart = append(fig.loadedToStart, starting.Time.Sub(loaded.Time))
			fig.startToReady = append(fig.startToReady, ready.Time.Sub(starting.Time))
			fig.delivery = append(fig.delivery, up.At.Sub(up.Time))
		}
		if i == 0 { // once: the API lists the new server's tools too
			names, err := v.toolNames(ctx)
			if err != nil {
				return "", err
			}
			if !names[name+"__echo"] {
				return "", fmt.Errorf("%s__echo not in /api/v1/tools after its tools.changed", name)
			}
		}

		// Take it out again, so every edit adds to a fleet of n.
		mark = v.log.mark()
		if err := base.write(cfg); err != nil {
			return "", err
		}
		wctx, cancel = context.WithTimeout(ctx, 30*time.Second)
		_, _, err = v.log.wait(wctx, mark, func(e event) bool { return e.stateTo(name, messages.StateStopped) })
		cancel()
		if err != nil {
			return "", fmt.Errorf("edit %d: %s never stopped: %w", i, name, err)
		}
	}
	return h.editReport(fig), nil
}

// editFigures are what benchEdit measured: per edit, the latency and the
// server's own start-up measured before it, and, for the edits whose
// events were all seen, the breakdown of the latency by mcpvisor's own
// event times.
type editFigures struct {
	lat, startups                                   sample
	toLoaded, loadedToStart, startToReady, delivery sample
}

// editReport records benchEdit's samples and prints its table: the
// latency, the overhead left after the debounce and the median start-up,
// and the breakdown, with the verdict on the overhead target.
func (h *harness) editReport(fig editFigures) string {
	n, edits := h.opt.servers, h.opt.edits
	overhead := fig.lat.minus(h.opt.debounce + fig.startups.median())
	h.samples["edit"] = map[string]any{
		"servers": n, "debounce_ms": h.opt.debounce.Seconds() * 1000,
		"edit_to_ready_ms": fig.lat.msList(), "raw_startup_ms": fig.startups.msList(), "overhead_ms": overhead.msList(),
	}
	var t table
	t.head = []string{"figure (" + fmt.Sprint(edits) + " edits, fleet of " + fmt.Sprint(n) + ")", "min / median / p99 ms"}
	t.add("write → new server's tools on /api/v1/events", fig.lat.mmp())
	t.add("its own start-up: raw go-sdk spawn + Connect + ListTools", fig.startups.mmp())
	t.add(fmt.Sprintf("**overhead** = latency − debounce (%s) − median start-up (%s)", ms(h.opt.debounce), ms(fig.startups.median())), "**"+overhead.mmp()+"**")
	t.add("breakdown: write → config.loaded (watch + debounce + read + parse)", fig.toLoaded.mmp())
	t.add("breakdown: config.loaded → starting (diff, plan)", fig.loadedToStart.mmp())
	t.add("breakdown: starting → ready (mcpvisor's spawn + connect + list)", fig.startToReady.mmp())
	t.add("breakdown: tools.changed published → read by the harness", fig.delivery.mmp())
	med := overhead.median()
	body := t.String() + fmt.Sprintf("\nTarget: median overhead under 5 ms: %s (%s ms).\n", verdict(med < 5*time.Millisecond), ms(med))
	return body + commandLine("edit", fmt.Sprintf("-servers %d -edits %d", n, edits))
}

// editEvents picks, from the events after an edit that added name, the
// first config.loaded and name's first starting and ready.
func editEvents(evs []event, name string) (loaded, starting, ready event) {
	for _, e := range evs {
		switch {
		case e.Type == "config.loaded" && loaded.Seq == 0:
			loaded = e
		case e.stateTo(name, messages.StateStarting) && starting.Seq == 0:
			starting = e
		case e.stateTo(name, messages.StateReady) && ready.Seq == 0:
			ready = e
		}
	}
	return loaded, starting, ready
}

func commandLine(only, flags string) string {
	return fmt.Sprintf("\nCommand: `cd test/bench && go run . -only %s %s`\n", only, strings.TrimSpace(flags))
}
