package chaos_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The schedule. Each step draws a fault from faultKinds (by weight), with
// every parameter drawn from the run's seeded generator before anything
// running is looked at, so a seed replays the same sequence of decisions;
// whether a kill lands depends on what runs at that moment. Between steps
// the schedule waits 10 to 150 ms. Callers run throughout.

type faultKind struct {
	name   string
	weight int
	do     func(r *run)
}

var faultKinds = []faultKind{
	{"kill -9", 14, (*run).kill},
	{"SIGSTOP", 3, (*run).freeze},
	{"crash tool", 3, (*run).crashTool},
	{"injected ServerFailed", 2, (*run).injectFailure},
	{"config edit", 24, (*run).edit},
	{"unusable write", 8, (*run).unusableWrite},
	{"resync", 5, (*run).resync},
	{"dry-run resync", 4, (*run).dryRun},
}

// inject runs the schedule for the run's duration.
func (r *run) inject() {
	total := 0
	for _, f := range faultKinds {
		total += f.weight
	}
	deadline := time.Now().Add(r.duration)
	for time.Now().Before(deadline) && r.ctx.Err() == nil {
		r.thawDue()
		n := r.rng.IntN(total)
		for _, f := range faultKinds {
			if n < f.weight {
				f.do(r)
				break
			}
			n -= f.weight
		}
		r.observe()
		_ = waitFor(r.ctx, time.Duration(10+r.rng.IntN(140))*time.Millisecond)
	}
}

// pickName draws one name among the configured servers that satisfy ok
// ("" if none).
func (r *run) pickName(ok func(entry) bool) (file int, name string) {
	type cand struct {
		file int
		name string
	}
	var cands []cand
	for _, f := range r.files {
		for _, n := range slices.Sorted(maps.Keys(f.entries)) {
			if ok(f.entries[n]) {
				cands = append(cands, cand{f.index, n})
			}
		}
	}
	if len(cands) == 0 {
		return -1, ""
	}
	c := cands[r.rng.IntN(len(cands))]
	return c.file, c.name
}

func isStdio(e entry) bool { return e.Kind.stdio() }

// pickReady draws one server that is ready now and whose entry satisfies
// ok. The draw is made whatever runs, so that the generator's sequence,
// and with it the rest of the schedule, does not depend on timing.
func (r *run) pickReady(ok func(entry) bool) (name string, st messages.ServerStatus) {
	n := r.rng.IntN(1 << 20)
	configured := map[string]entry{}
	for _, f := range r.files {
		maps.Copy(configured, f.entries)
	}
	var ready []messages.ServerStatus
	for _, s := range r.sup.Status().Servers {
		if e, ok2 := configured[s.Name]; ok2 && ok(e) && s.State == messages.StateReady {
			ready = append(ready, s)
		}
	}
	if len(ready) == 0 {
		return "", messages.ServerStatus{}
	}
	st = ready[n%len(ready)]
	return st.Name, st
}

func (r *run) kill() {
	_, st := r.pickReady(isStdio)
	if st.PID == 0 {
		r.count("kill -9: nothing running")
		return
	}
	if err := signalOurs(st.PID, r.env.runMarker, unix.SIGKILL); err != nil {
		r.count("kill -9: process already gone")
		return
	}
	r.killed = append(r.killed, st.PID)
	r.count("kill -9")
}

// freeze stops a server's process (SIGSTOP) for 0.3 to 2.5 s: it neither
// dies nor answers, so only the health probe can notice.
func (r *run) freeze() {
	resume := time.Duration(300+r.rng.IntN(2200)) * time.Millisecond
	_, st := r.pickReady(isStdio)
	if _, frozen := r.frozen[st.PID]; st.PID == 0 || frozen {
		r.count("SIGSTOP: nothing running")
		return
	}
	if err := signalOurs(st.PID, r.env.runMarker, unix.SIGSTOP); err != nil {
		r.count("SIGSTOP: process already gone")
		return
	}
	r.frozen[st.PID] = time.Now().Add(resume)
	r.count("SIGSTOP (resumed by SIGCONT later)")
}

func (r *run) thawDue() {
	for pid, at := range r.frozen {
		if time.Now().After(at) {
			r.thaw(pid)
		}
	}
}

func (r *run) thaw(pid int) {
	delete(r.frozen, pid)
	_ = signalOurs(pid, r.env.runMarker, unix.SIGCONT) // it may have been killed meanwhile
}

// crashTool calls the crash tool: the server exits without answering.
func (r *run) crashTool() {
	name, _ := r.pickReady(isStdio)
	if name == "" {
		r.count("crash tool: nothing running")
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, callBound)
	defer cancel()
	res, err := r.sup.CallTool(ctx, actors.QualifiedName(name, "crash"), map[string]any{})
	outcome, violation := classifyCall(r.ctx, ctx, res != nil, err)
	if violation != "" {
		r.violate("%s__crash: %s", name, violation)
	}
	if err != nil {
		r.secrets.check("call errors", "the error of "+name+"__crash", err.Error())
	}
	r.count("crash tool: " + outcome)
}

// injectFailure sends the fleet actor a ServerFailed for a ready server's
// session, or (half the time) for a session that is not current, which
// must be ignored.
func (r *run) injectFailure() {
	stale := r.rng.IntN(2) == 0
	name, s := r.pickReady(func(e entry) bool { return e.Kind.stdio() || e.Kind == kindHTTP })
	if name == "" {
		r.count("injected ServerFailed: nothing running")
		return
	}
	session, kind := s.Session, "injected ServerFailed (current session)"
	if stale {
		session, kind = s.Session+1000, "injected ServerFailed (stale session)"
	}
	actorstest.Send(r.t, r.sup, actorstest.Fleet, &messages.ServerFailed{
		Server: name, Session: session, Error: "injected by the chaos test", ExitCode: -1,
	})
	r.count(kind)
}

// resync starts a real resync on its own goroutine (one at a time; if one
// is running, a dry run instead). It must complete: every server it
// started settles within its connect timeout.
func (r *run) resync() {
	if !r.resyncBusy.CompareAndSwap(false, true) {
		r.dryRun()
		return
	}
	r.resyncs.Add(1)
	go func() {
		defer r.resyncs.Done()
		defer r.resyncBusy.Store(false)
		ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
		defer cancel()
		plan, done, err := r.sup.Resync(ctx, false)
		r.scanResync("a resync", plan, done, err)
		switch {
		case err == nil:
			r.count("resync")
		case errors.Is(err, context.DeadlineExceeded) && r.ctx.Err() == nil:
			r.violate("a resync did not complete within 30s (plan %+v)", plan)
		default:
			r.violate("resync: %v", err)
		}
	}()
}

func (r *run) dryRun() {
	ctx, cancel := context.WithTimeout(r.ctx, 15*time.Second)
	defer cancel()
	plan, _, err := r.sup.Resync(ctx, true)
	r.scanResync("a dry-run resync", plan, nil, err)
	if err != nil {
		r.violate("dry-run resync: %v", err)
		return
	}
	r.count("dry-run resync")
}

// unusableWrite writes content mcpvisor cannot use into a file: it must
// keep what the file last contributed.
func (r *run) unusableWrite() {
	f := r.files[r.rng.IntN(len(r.files))]
	kind := badKinds[r.rng.IntN(len(badKinds))]
	good := renderFile(f.entries, 0, f.index, r.env, r.rng)
	data := badContent(kind, good, r.rng)
	mode := r.pickMode(f, false)
	if err := f.write(r.ctx, mode, data, 0); err != nil {
		r.t.Fatalf("write %s: %v", f.path, err)
	}
	r.writes[-len(r.writes)-1] = &writeRecord{file: f.index, mode: mode, bad: kind}
	r.count("unusable write: " + kind)
}

// pickMode draws how a file is written.
func (r *run) pickMode(f *configFile, allowDelete bool) string {
	modes := []string{modeAtomic, modeAtomic, modeAtomic, modeInPlace, modeInPlace, modeVim, modeVim}
	if f.symlink {
		modes = []string{modeSwap, modeSwap, modeSwap, modeSwap, modeSwap}
	}
	if allowDelete {
		modes = append(modes, modeDelete)
	}
	return modes[r.rng.IntN(len(modes))]
}

// mutation changes the model; it returns the files it touched, in the
// order they must be written.
type mutation struct {
	name   string
	weight int
	do     func(r *run) []int
}

var mutations = []mutation{
	{"add server", 5, (*run).mutAdd},
	{"remove server", 4, (*run).mutRemove},
	{"change args", 4, (*run).mutArgs},
	{"rotate secret", 3, (*run).mutSecret},
	{"disable or enable", 3, (*run).mutDisable},
	{"change live settings (no restart)", 3, (*run).mutLive},
	{"move to the other file (no restart)", 2, (*run).mutMove},
	{"break or repair a server", 3, (*run).mutBreak},
	{"rewrite unchanged", 2, (*run).mutNothing},
}

// edit applies one to three mutations, then writes every touched file.
func (r *run) edit() {
	total := 0
	for _, m := range mutations {
		total += m.weight
	}
	var touched []int
	for range 1 + r.rng.IntN(3) {
		n := r.rng.IntN(total)
		for _, m := range mutations {
			if n < m.weight {
				files := m.do(r)
				if len(files) > 0 {
					r.count("mutation: " + m.name)
				}
				for _, f := range files {
					if !slices.Contains(touched, f) {
						touched = append(touched, f)
					}
				}
				break
			}
			n -= m.weight
		}
	}
	for _, i := range touched {
		r.writeValid(r.files[i], r.pickMode(r.files[i], true))
	}
	r.updateNames()
}

func (r *run) size() int {
	n := 0
	for _, f := range r.files {
		n += len(f.entries)
	}
	return n
}

func isRegular(e entry) bool { return e.Kind != kindMarker && e.Kind != kindInvalid }

func (r *run) mutAdd() []int {
	pool := []serverKind{kindOK, kindOK, kindOK, kindOK, kindSlow, kindFlaky, kindWrapped, kindHang, kindInitFail, kindGarbage}
	k := pool[r.rng.IntN(len(pool))]
	f := r.rng.IntN(len(r.files))
	if r.size() >= 18 {
		return nil
	}
	if k == kindWrapped {
		if _, n := r.pickName(func(e entry) bool { return e.Kind == kindWrapped }); n != "" {
			k = kindOK // one wrapped server at a time is enough
		}
	}
	r.addServer(r.files[f].entries, k)
	return []int{f}
}

func (r *run) mutRemove() []int {
	f, name := r.pickName(func(e entry) bool { return isRegular(e) && !e.Kind.http() })
	if name == "" || r.size() <= 10 {
		return nil
	}
	delete(r.files[f].entries, name)
	r.removed = append(r.removed, name)
	return []int{f}
}

func (r *run) mutArgs() []int {
	f, name := r.pickName(isStdio)
	step := 1 + r.rng.IntN(3)
	if name == "" {
		return nil
	}
	e := r.files[f].entries[name]
	e.Variant = (e.Variant + step) % 4
	r.files[f].entries[name] = e
	return []int{f}
}

func (r *run) mutSecret() []int {
	f, name := r.pickName(func(e entry) bool { return isRegular(e) })
	if name == "" {
		return nil
	}
	e := r.files[f].entries[name]
	e.Secret = r.secrets.newSecret(r.rng, "the rotated secret of "+name)
	r.files[f].entries[name] = e
	return []int{f}
}

func (r *run) mutDisable() []int {
	f, name := r.pickName(isRegular)
	if name == "" {
		return nil
	}
	e := r.files[f].entries[name]
	e.Disabled = !e.Disabled
	r.files[f].entries[name] = e
	return []int{f}
}

func (r *run) mutLive() []int {
	f, name := r.pickName(isRegular)
	timeouts := []string{"", "2s", "3s", "4s"}
	denies := [][]string{nil, {"add"}, {"sleep", "getenv"}}
	t, d := timeouts[r.rng.IntN(len(timeouts))], denies[r.rng.IntN(len(denies))]
	if name == "" {
		return nil
	}
	e := r.files[f].entries[name]
	e.CallTimeout, e.DenyTools = t, d
	r.files[f].entries[name] = e
	return []int{f}
}

// mutMove moves a server to the other file, unchanged: it is added there
// first and removed here second, as a careful user would, so the name is
// declared throughout and the server must keep its session.
func (r *run) mutMove() []int {
	f, name := r.pickName(isRegular)
	if name == "" {
		return nil
	}
	to := 1 - f
	r.files[to].entries[name] = r.files[f].entries[name]
	delete(r.files[f].entries, name)
	return []int{to, f}
}

// mutBreak turns a healthy stdio server into a broken one (a restart whose
// new session fails: the old one must keep serving) or a broken one into a
// healthy one.
func (r *run) mutBreak() []int {
	f, name := r.pickName(func(e entry) bool {
		return e.Kind == kindOK || e.Kind == kindSlow || e.Kind == kindHang || e.Kind == kindInitFail || e.Kind == kindGarbage
	})
	broken := []serverKind{kindHang, kindInitFail, kindGarbage}
	k := broken[r.rng.IntN(len(broken))]
	if name == "" {
		return nil
	}
	e := r.files[f].entries[name]
	if e.Kind.broken() {
		k = kindOK
	}
	e.Kind = k
	r.files[f].entries[name] = e
	return []int{f}
}

func (r *run) mutNothing() []int { return []int{r.rng.IntN(len(r.files))} }

func (m mutation) String() string { return fmt.Sprintf("%s (%d)", m.name, m.weight) }
