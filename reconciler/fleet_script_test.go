package reconciler_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of reconciler/testdata/fleet/*.txt")

// TestFleet_Scripts runs the lifecycle scripts in testdata/fleet: each
// command is followed by "----" and the effects and changed status rows it
// must produce. After an intended change, regenerate them with
//
//	go test ./reconciler/ -run TestFleet_Scripts -rewrite
//
// and read the diff: the scripts are the specification.
//
// Commands:
//
//	fleet connects=N grace=D lazystarts=N backoff=D max=D jitter=F loop=N/D
//	                                                     the policy (first command only)
//	desired [gen=N] name=version[,option]...             a new desired state (options: disabled,
//	                                                     never, allow=a+b, deny=a+b; or name=invalid)
//	resync [dry] [name=version ...]                      a resync; with entries, the read found
//	                                                     that desired state first
//	ready name[#session] [tools=a,b] [pid=N]             the session connected (default tools: echo)
//	tools name[#session] a,b                             the ready session listed new tools (a@2: changed)
//	                                                     (ready also takes prompts=, resources=, templates=
//	                                                     and skipped= lists)
//	prompts name[#session] a,b [skipped=x]               the ready session listed new prompts
//	resources name[#session] u,v [templates=t]           the ready session listed new resources and templates
//	crash name[#session] [status=N] [err="..."] [jitter=F]  the session died or failed to start
//	crash name[#session] auth="..."                      it was refused for want of authorization (needs-auth)
//	stopped name[#session]                               a stopped session is gone (default: the oldest)
//	tick D                                               time passes; due retry timers fire
//	fire name                                            the timer armed last for name fires now,
//	                                                     cancelled or not (its fire raced the cancel)
//	sampled [idle=a,b] [busy=c]                          the shell's answer to SampleConnects: the
//	                                                     named connecting sessions' processes were
//	                                                     idle, or wanted CPU
//	status                                               print every row
//	use name                                             a request wants name now (use u1, u2, ...)
//	release uN                                           use uN is done, or gave up waiting
//	cache name=version [tools=a,b] [prompts=p] [resources=u] [templates=t]
//	                                                     the shell's catalog cache held this entry at
//	                                                     start (cache lines come first: each steps a
//	                                                     CacheLoaded with every entry so far)
//
// Entries also take the options lazy, eager and idle=D (the idle timeout).
// "tick" fires idle timers too.
//
// A bare name means its newest live session.
func TestFleet_Scripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/fleet/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			runScript(t, file)
		})
	}
}

// scriptBlock is one command of a script: its comment lines, the command
// and the expected output.
type scriptBlock struct {
	line     int
	comments []string
	command  string
	want     []string
}

func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseScript(t, file, string(data))
	rig := newFleetRig(t, defaultRigOptions)
	var rewritten strings.Builder
	for i, b := range blocks {
		if i == 0 && strings.HasPrefix(b.command, "fleet") {
			rig = newFleetRig(t, policy(t, b.command))
		} else {
			rig.out = nil
			rig.run(b.command)
		}
		got := append([]string{}, rig.out...)
		if *rewrite {
			for _, c := range b.comments {
				rewritten.WriteString(c + "\n")
			}
			rewritten.WriteString(b.command + "\n----\n")
			for _, l := range got {
				rewritten.WriteString(l + "\n")
			}
			rewritten.WriteString("\n")
			continue
		}
		if diff := cmp.Diff(b.want, got); diff != "" {
			t.Fatalf("%s:%d: %s (-want +got):\n%s\ngot:\n%s", file, b.line, b.command, diff, strings.Join(got, "\n"))
		}
	}
	if *rewrite {
		if err := os.WriteFile(file, []byte(strings.TrimSuffix(rewritten.String(), "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func parseScript(t *testing.T, file, text string) []scriptBlock {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var blocks []scriptBlock
	var b scriptBlock
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == "" && b.command == "":
			if len(b.comments) > 0 {
				b.comments = append(b.comments, "") // a paragraph break in the prose
			}
		case strings.HasPrefix(l, "#"):
			b.comments = append(b.comments, l)
		default:
			b.line, b.command = i+1, l
			if i+1 >= len(lines) || lines[i+1] != "----" {
				t.Fatalf("%s:%d: %q is not followed by ----", file, i+1, l)
			}
			i += 2
			b.want = []string{}
			for ; i < len(lines) && lines[i] != ""; i++ {
				b.want = append(b.want, lines[i])
			}
			blocks = append(blocks, b)
			b = scriptBlock{}
		}
	}
	return blocks
}

func policy(t *testing.T, command string) reconciler.FleetOptions {
	opts := defaultRigOptions
	args, _ := scriptArgs(t, command)
	for _, a := range args[1:] {
		key, val, _ := strings.Cut(a, "=")
		switch key {
		case "connects":
			opts.MaxConnects = atoi(t, val)
		case "grace":
			opts.ConnectGrace = duration(t, val)
		case "lazystarts":
			opts.MaxLazyStarts = atoi(t, val)
		case "backoff":
			opts.Backoff.Initial = duration(t, val)
		case "max":
			opts.Backoff.Max = duration(t, val)
		case "jitter":
			opts.Backoff.Jitter, _ = strconv.ParseFloat(val, 64)
		case "loop":
			n, window, _ := strings.Cut(val, "/")
			opts.CrashLoop = reconciler.CrashLoop{Failures: atoi(t, n), Window: duration(t, window)}
		default:
			t.Fatalf("fleet: unknown setting %q", a)
		}
	}
	return opts
}

// run carries out one script command.
func (r *fleetRig) run(command string) {
	args, kv := scriptArgs(r.t, command)
	switch args[0] {
	case "desired":
		r.gen++
		if g, ok := kv["gen"]; ok {
			r.gen = uint64(atoi(r.t, g))
		}
		r.desired(r.gen, entries(args[1:]))
	case "resync":
		r.resync(args[1:])
	case "ready":
		s := r.pick(args[1], live)
		names := []string{"echo"}
		if v, ok := kv["tools"]; ok {
			names = splitList(v)
		}
		pid := 1000 + int(s.id)
		if v, ok := kv["pid"]; ok {
			pid = atoi(r.t, v)
		}
		s.ready = true
		r.step(reconciler.SessionReady{Now: r.now, Server: s.server, Session: s.id, PID: pid, Tools: tools(s.server, names),
			Prompts: prompts(s.server, splitList(kv["prompts"])), Resources: resources(s.server, splitList(kv["resources"])),
			Templates: templates(s.server, splitList(kv["templates"])), Skipped: skipped(s.server, splitList(kv["skipped"]))})
	case "tools":
		s := r.pick(args[1], func(s *rigSession) bool { return live(s) && s.ready })
		r.step(reconciler.SessionTools{Now: r.now, Server: s.server, Session: s.id, Tools: tools(s.server, splitList(args[2]))})
	case "prompts":
		s := r.pick(args[1], func(s *rigSession) bool { return live(s) && s.ready })
		r.step(reconciler.SessionPrompts{Server: s.server, Session: s.id, Prompts: prompts(s.server, splitList(args[2])), Skipped: skipped(s.server, splitList(kv["skipped"]))})
	case "resources":
		s := r.pick(args[1], func(s *rigSession) bool { return live(s) && s.ready })
		r.step(reconciler.SessionResources{Server: s.server, Session: s.id, Resources: resources(s.server, splitList(args[2])),
			Templates: templates(s.server, splitList(kv["templates"]))})
	case "crash":
		s := r.pick(args[1], func(s *rigSession) bool { return !s.stopped })
		f := &messages.ServerFailed{Server: s.server, Session: s.id, Error: "connect: binary not found", ExitCode: -1}
		if v, ok := kv["status"]; ok {
			f.ExitCode = atoi(r.t, v)
			f.Error = "server process exited: exit status " + v
		}
		if v, ok := kv["err"]; ok {
			f.Error = v
		}
		if v, ok := kv["auth"]; ok {
			f.Error, f.NeedsAuth = v, true
		}
		jitter := 0.0
		if v, ok := kv["jitter"]; ok {
			jitter, _ = strconv.ParseFloat(v, 64)
		}
		r.step(reconciler.SessionFailed{Now: r.now, Failure: f, Jitter: jitter})
	case "stopped":
		s := r.pickStopping(args[1])
		s.stopped = true
		r.step(reconciler.SessionStopped{Now: r.now, Server: s.server, Session: s.id})
	case "tick":
		r.now = r.now.Add(duration(r.t, args[1]))
		r.fire()
	case "fire":
		token, ok := r.armed[args[1]]
		if !ok {
			r.t.Fatalf("fire %s: no timer was ever armed", args[1])
		}
		delete(r.timers, args[1])
		r.step(reconciler.RetryDue{Now: r.now, Server: args[1], Token: token})
	case "use":
		r.uses++
		id := fmt.Sprintf("u%d", r.uses)
		r.useServer[id] = args[1]
		r.step(reconciler.ServerWanted{Now: r.now, ID: id, Server: args[1]})
	case "release":
		server, ok := r.useServer[args[1]]
		if !ok {
			r.t.Fatalf("release %s: no such use", args[1])
		}
		r.released[args[1]] = true
		r.step(reconciler.ServerReleased{Now: r.now, ID: args[1], Server: server})
	case "cache":
		name, version, _ := strings.Cut(args[1], "=")
		r.cached = append(r.cached, reconciler.CachedCatalog{
			Server: name, Source: "mcp.json", Key: reconciler.CatalogKey(version), Tools: tools(name, splitList(kv["tools"])),
			Prompts: prompts(name, splitList(kv["prompts"])), Resources: resources(name, splitList(kv["resources"])),
			Templates: templates(name, splitList(kv["templates"])),
		})
		r.step(reconciler.CacheLoaded{Entries: r.cached})
	case "sampled":
		if !r.sampling {
			r.t.Fatalf("sampled: the fleet asked for no sample")
		}
		r.sampling = false
		connecting := func(s *rigSession) bool { return live(s) && !s.ready }
		var idle, busy []uint64
		for _, ref := range splitList(kv["idle"]) {
			idle = append(idle, r.pick(ref, connecting).id)
		}
		for _, ref := range splitList(kv["busy"]) {
			busy = append(busy, r.pick(ref, connecting).id)
		}
		r.step(reconciler.ConnectsSampled{Now: r.now, Idle: idle, Busy: busy})
	case "status":
		for _, row := range r.fleet.Rows() {
			r.print(renderRow(row, r.now))
		}
		r.print(fmt.Sprintf("generation %d observed %d", r.fleet.Generation(), r.fleet.ObservedGeneration()))
	default:
		r.t.Fatalf("unknown command %q", command)
	}
}

// resync: "resync [dry] [entries]". With entries, the config read found
// them: a real resync commits them first (FollowsChange), a dry run
// previews them under the next generation.
func (r *fleetRig) resync(args []string) {
	r.resyncs++
	m := &messages.Resync{ID: fmt.Sprintf("r%d", r.resyncs), Generation: r.gen}
	if len(args) > 0 && args[0] == "dry" {
		m.DryRun, args = true, args[1:]
		if len(args) > 0 {
			m.Preview = desiredState(r.t, r.gen+1, entries(args))
			m.Generation = r.gen + 1
		}
	} else if len(args) > 0 {
		r.gen++
		r.desired(r.gen, entries(args))
		m.Generation, m.FollowsChange = r.gen, true
	}
	r.step(reconciler.ResyncArrived{Now: r.now, Resync: m})
}

// pickStopping finds the session a "stopped" names: exactly, or the oldest
// the fleet asked to stop.
func (r *fleetRig) pickStopping(ref string) *rigSession {
	if strings.Contains(ref, "#") {
		return r.pick(ref, nil)
	}
	for _, s := range r.sessions {
		if s.server == ref && s.stopping && !s.stopped {
			return s
		}
	}
	r.t.Fatalf("stopped %s: the fleet stopped no session of it", ref)
	return nil
}

func entries(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "gen=") {
			out = append(out, a)
		}
	}
	return out
}

// scriptArgs splits a command into words (a "quoted string" is one word)
// and returns the key=value words as a map as well.
func scriptArgs(t testing.TB, command string) ([]string, map[string]string) {
	var args []string
	var cur strings.Builder
	quoted := false
	for _, c := range command {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ' ' && !quoted:
			if cur.Len() > 0 {
				args = append(args, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(c)
		}
	}
	if quoted {
		t.Fatalf("%q: unbalanced quote", command)
	}
	if cur.Len() > 0 {
		args = append(args, cur.String())
	}
	kv := map[string]string{}
	for _, a := range args[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			kv[k] = v
		}
	}
	return args, kv
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func atoi(t testing.TB, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

func duration(t testing.TB, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("not a duration: %q", s)
	}
	return d
}
