package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// peerRound runs every side-by-side scenario once on m, in this order:
// the cold starts, the edits adding a server, the edit of one server's
// env, the kill -9 of one, and the shutdown. The steps after the cold
// starts run on the fleet of 10 those leave running, so each depends on
// the ones before it.
func (h *harness) peerRound(ctx context.Context, kit nodeKit, m manager, round int) (peerRun, error) {
	var r peerRun
	cfg := filepath.Join(h.work, fmt.Sprintf("peer-%s-%d.json", m.name(), round))
	f10, err := h.peerColdStarts(ctx, kit, m, cfg, &r)
	if err != nil {
		return r, err
	}
	if err := h.peerAddEdits(ctx, kit, m, cfg, f10, &r); err != nil {
		return r, err
	}
	if err := h.peerEnvEdit(ctx, m, cfg, f10, round, &r); err != nil {
		return r, err
	}
	if err := h.peerKillRecovery(ctx, m, &r); err != nil {
		return r, err
	}
	if err := h.peerShutdown(ctx, m, &r); err != nil {
		return r, err
	}
	return r, nil
}

// peerColdStarts times m's cold start on the fleet of 2 and, after
// stopping it, on the fleet of 10, each with peerColdStart, into r. The
// manager on the fleet of 10 keeps running for the rest of the round;
// that fleet is returned for the steps that edit it.
func (h *harness) peerColdStarts(ctx context.Context, kit nodeKit, m manager, cfg string, r *peerRun) (fleet, error) {
	// Cold start of 2.
	f2 := kit.fleet2()
	if err := f2.write(cfg); err != nil {
		return nil, err
	}
	var err error
	if r.cold2, err = h.peerColdStart(ctx, m, cfg, f2); err != nil {
		return nil, fmt.Errorf("cold start of 2: %w", err)
	}
	m.stop()
	if err := sleep(ctx, 500*time.Millisecond); err != nil {
		return nil, err
	}

	// Cold start of 10; this one keeps running for the rest of the round.
	f10 := kit.fleet10()
	if err := f10.write(cfg); err != nil {
		return nil, err
	}
	if r.cold10, err = h.peerColdStart(ctx, m, cfg, f10); err != nil {
		return nil, fmt.Errorf("cold start of 10: %w", err)
	}
	if err := sleep(ctx, time.Second); err != nil {
		return nil, err
	}
	return f10, nil
}

// peerAddEdits times -peer-edits edits that add a server to f10 (and take
// it out again), into r: write → the manager says it is connected, write
// → it begins applying the edit, and for mcpvisor where the time went by
// its own events. Each edit is preceded by the added server's own
// start-up. r.keptOnAdd says whether the untouched servers kept their
// processes across all of them.
func (h *harness) peerAddEdits(ctx context.Context, kit nodeKit, m manager, cfg string, f10 fleet, r *peerRun) error {
	before := serverPIDs(m, h.reaper)
	added := "filesystem-added"
	withAdded := f10.with(fleet{added: kit.server("filesystem", added)})
	for i := range h.opt.peerEdits {
		// The added server's own start-up, measured right before the edit.
		d, err := h.peerRawStartup(ctx, kit)
		if err != nil {
			return err
		}
		r.startups = append(r.startups, d)
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}

		mark := m.events().mark()
		t0 := time.Now()
		if err := withAdded.write(cfg); err != nil {
			return err
		}
		done, err := h.peerEditDone(ctx, m, mark, added)
		if err != nil {
			return fmt.Errorf("edit %d: %w", i, err)
		}
		r.edits = append(r.edits, done.Sub(t0))
		actx, cancel := context.WithTimeout(ctx, time.Second) // it came before the done event
		ev, _, err := m.events().wait(actx, mark, m.editApplying(added))
		cancel()
		if err != nil {
			return fmt.Errorf("edit %d: no event for applying it: %w", i, err)
		}
		r.applying = append(r.applying, ev.At.Sub(t0))
		if vm, ok := m.(*visorManager); ok {
			loaded, starting, ready := editEvents(vm.v.log.since(mark), added)
			if loaded.Seq != 0 && starting.Seq != 0 && ready.Seq != 0 {
				r.editLoaded = append(r.editLoaded, loaded.Time.Sub(t0))
				r.editStart = append(r.editStart, ready.Time.Sub(starting.Time))
			}
		}
		if err := sleep(ctx, 300*time.Millisecond); err != nil {
			return err
		}
		if err := f10.write(cfg); err != nil {
			return err
		}
		if _, err := pollServers(ctx, m, 30*time.Second, func(s map[string]peerServer) bool { _, ok := s[added]; return !ok }); err != nil {
			return fmt.Errorf("edit %d: %s never removed: %w", i, added, err)
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
	after := serverPIDs(m, h.reaper)
	r.keptOnAdd = changedProcesses(before, after, f10.names(), "") == 0
	return nil
}

// peerRawStartup is the start-up of the server an add edit adds, on its
// own: the raw go-sdk spawn + Connect + ListTools of a filesystem server,
// in the environment the managers get, so that an edit's figure can be
// read against the part of it no manager can save.
func (h *harness) peerRawStartup(ctx context.Context, kit nodeKit) (time.Duration, error) {
	fsEntry := kit.server("filesystem", "raw")
	rs, d, err := h.rawStart(ctx, append(h.peerEnv(), envList(fsEntry.Env)...), fsEntry.Command, fsEntry.Args...)
	if err != nil {
		return 0, err
	}
	rs.close()
	return d, nil
}

// peerEnvEdit times an edit of one server's env in f10, into r: how long
// until it is back, and how many of the others got a new process. The
// edit sets BENCH_ROUND to the round, so that every round changes it.
func (h *harness) peerEnvEdit(ctx context.Context, m manager, cfg string, f10 fleet, round int, r *peerRun) error {
	target := "memory-1"
	st, err := m.servers(ctx)
	if err != nil {
		return err
	}
	was := st[target].incarnation
	before := serverPIDs(m, h.reaper)
	edited := f10.with(fleet{target: withEnv(f10[target], "BENCH_ROUND", fmt.Sprint(round))})
	mark := m.events().mark()
	t0 := time.Now()
	if err := edited.write(cfg); err != nil {
		return err
	}
	done, err := h.peerEditDone(ctx, m, mark, target)
	if err != nil {
		return fmt.Errorf("env edit: %w", err)
	}
	r.envEdit = done.Sub(t0)
	if st, err = m.servers(ctx); err != nil || st[target].incarnation == was {
		return fmt.Errorf("env edit: %s was not restarted (%v)", target, err)
	}
	if err := sleep(ctx, time.Second); err != nil {
		return err
	}
	after := serverPIDs(m, h.reaper)
	r.restartedOthers = changedProcesses(before, after, f10.names(), target)
	return nil
}

// peerKillRecovery kills one server with kill -9 and records in r whether
// m noticed and brought it back within -peer-kill-wait, and how long that
// took; if it did not, whether m's API still called it connected.
func (h *harness) peerKillRecovery(ctx context.Context, m manager, r *peerRun) error {
	victim := "everything-1"
	pids := serverPIDs(m, h.reaper)[victim]
	if len(pids) != 1 {
		return fmt.Errorf("kill: %s has %d processes: %v", victim, len(pids), pids)
	}
	mark := m.events().mark()
	t0 := time.Now()
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		return err
	}
	at, err := h.peerRecovered(ctx, m, mark, victim, pids[0])
	switch {
	case err == nil:
		r.killRecovered, r.killRecovery = true, at.Sub(t0)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		st, err := m.servers(ctx)
		if err != nil {
			return err
		}
		r.killStillUp = st[victim].up
	default:
		return err
	}
	return nil
}

// peerShutdown stops m and records in r how long its shutdown took and
// how many server processes it left alive, when it had exited and one
// second later.
func (h *harness) peerShutdown(ctx context.Context, m manager, r *peerRun) error {
	// Shut down: how long, and does anything stay behind? After a pause:
	// a server-everything that was started less than about 350 ms ago has
	// a roots/list request in flight and then ignores stdin EOF (see
	// docs/benchmarks.md), which is a different measurement.
	if err := sleep(ctx, time.Second); err != nil {
		return err
	}
	left := serverPIDs(m, h.reaper)
	r.shutdown = m.stop()
	count := func() (n int) {
		for _, ps := range left {
			for _, p := range ps {
				if alive(p) {
					n++
				}
			}
		}
		return n
	}
	r.leftAfterShutdown = count()
	if err := sleep(ctx, time.Second); err != nil {
		return err
	}
	r.leftAfterSecond = count()
	return nil
}

// peerColdStart starts m on a config holding f and returns the time from
// the process start to the event that says all of f is up, checked
// against its API afterwards.
func (h *harness) peerColdStart(ctx context.Context, m manager, cfg string, f fleet) (time.Duration, error) {
	t0, err := m.start(ctx, cfg)
	if err != nil {
		return 0, err
	}
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	ev, err := m.allUp(wctx, 0, f.names())
	if err != nil {
		return 0, err
	}
	st, err := m.servers(ctx)
	if err != nil {
		return 0, err
	}
	if !allUp(st, f) {
		return 0, fmt.Errorf("%s said all up, but its API shows %v", m.name(), st)
	}
	return ev.At.Sub(t0), nil
}

// peerEditDone waits for the event that says the edit adding or changing
// server is done, and checks the API agrees the server is up.
func (h *harness) peerEditDone(ctx context.Context, m manager, mark int, server string) (time.Time, error) {
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ev, _, err := m.events().wait(wctx, mark, m.editDone(server))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s never done: %w", server, err)
	}
	st, err := m.servers(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if !st[server].up {
		return time.Time{}, fmt.Errorf("%s said the edit of %s is done, but its API shows it %v", m.name(), server, st[server])
	}
	return ev.At, nil
}

// peerRecovered waits, at most -peer-kill-wait, until the killed server
// runs again in a new process and is up. mcpvisor says so with an event
// (its ready); mcp-hub has none for it, so its API and the process table
// are polled every 50 ms.
func (h *harness) peerRecovered(ctx context.Context, m manager, mark int, victim string, old int) (time.Time, error) {
	wctx, cancel := context.WithTimeout(ctx, h.opt.peerKillWait)
	defer cancel()
	if vm, ok := m.(*visorManager); ok {
		ev, _, err := vm.v.log.wait(wctx, mark, func(e event) bool { return e.stateTo(victim, messages.StateReady) })
		if err != nil {
			return time.Time{}, err
		}
		if now := serverPIDs(m, h.reaper)[victim]; len(now) != 1 || now[0] == old {
			return time.Time{}, fmt.Errorf("%s ready again but its processes are %v (killed %d)", victim, now, old)
		}
		return ev.At, nil
	}
	for {
		st, err := m.servers(wctx)
		at := time.Now()
		if err == nil && st[victim].up {
			if now := serverPIDs(m, h.reaper)[victim]; len(now) == 1 && now[0] != old {
				return at, nil
			}
		}
		if err := sleep(wctx, 50*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// allUp says whether s, a manager's API's view of its servers, shows
// every server of f up.
func allUp(s map[string]peerServer, f fleet) bool {
	for name := range f {
		if !s[name].up {
			return false
		}
	}
	return true
}

// changedProcesses counts the servers in names (but not except) whose set
// of processes differs between before and after.
func changedProcesses(before, after map[string][]int, names []string, except string) int {
	n := 0
	for _, name := range names {
		if name == except {
			continue
		}
		a, b := slices.Sorted(slices.Values(before[name])), slices.Sorted(slices.Values(after[name]))
		if !slices.Equal(a, b) {
			n++
		}
	}
	return n
}

// pollEvery paces the untimed waits on a manager's API.
const pollEvery = 10 * time.Millisecond

// pollServers polls m's API every pollEvery until cond holds, for at most
// limit; it returns when the poll that saw it was answered. Only untimed
// waits use it.
func pollServers(ctx context.Context, m manager, limit time.Duration, cond func(map[string]peerServer) bool) (time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		s, err := m.servers(ctx)
		at := time.Now()
		if err == nil && cond(s) {
			return at, nil
		}
		if err := sleep(ctx, pollEvery); err != nil {
			return time.Time{}, err
		}
	}
}
