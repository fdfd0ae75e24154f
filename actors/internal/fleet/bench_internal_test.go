package fleet

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/benchcpu"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// The catalog's cost in the fleet actor: the pure fleet stepped with every
// server's catalog, then the view swapped, as the fleet actor does
// after each message (events are built but not journalled).
//
//	go test ./actors/internal/fleet/ -run '^$' -bench BenchmarkCatalog -benchmem

const (
	benchServers   = 50
	benchTools     = 100
	benchPrompts   = 100
	benchResources = 1000
)

// benchCatalog is one server's catalog; version changes one resource.
func benchCatalog(server string, version int) session.Catalog {
	var c session.Catalog
	for i := range benchTools {
		c.Tools = append(c.Tools, messages.Tool{Server: server, Name: fmt.Sprintf("tool-%03d", i), Description: "A tool.", Hash: fmt.Sprintf("t%d", i)})
	}
	for i := range benchPrompts {
		c.Prompts = append(c.Prompts, messages.Prompt{Server: server, Name: fmt.Sprintf("prompt-%03d", i), Description: "A prompt.", Hash: fmt.Sprintf("p%d", i)})
	}
	for i := range benchResources {
		c.Resources = append(c.Resources, messages.Resource{Server: server, URI: fmt.Sprintf("bench://%s/r%04d", server, i), Name: "r", Hash: fmt.Sprintf("r%d", i)})
	}
	c.Resources[0].Hash = fmt.Sprintf("r0v%d", version)
	c.Templates = []messages.ResourceTemplate{{Server: server, URITemplate: "bench://" + server + "/items/{id}", Name: "item", Hash: "t"}}
	return c
}

type benchRig struct {
	r    *fleetActor
	cats map[string]session.Catalog
	now  time.Time
}

func newBenchRig(b *testing.B) *benchRig {
	b.Helper()
	rig := &benchRig{cats: map[string]session.Catalog{}, now: time.Unix(0, 0)}
	for i := range benchServers {
		name := fmt.Sprintf("s%02d", i)
		rig.cats[name] = benchCatalog(name, 0)
	}
	return rig
}

// build steps a fresh fleet to every server ready with its catalog and
// swaps in the view of all of it.
func (rig *benchRig) build() {
	r := &fleetActor{
		deps:     &Deps{Defaults: view.Defaults{CallTimeout: time.Minute}},
		view:     &View{},
		fleet:    reconciler.NewFleet(reconciler.FleetOptions{Backoff: reconciler.DefaultBackoff, CrashLoop: reconciler.DefaultCrashLoop}),
		sessions: map[uint64]*liveSession{},
	}
	d := &messages.DesiredState{Generation: 1}
	for i := range benchServers {
		name := fmt.Sprintf("s%02d", i)
		d.Servers = append(d.Servers, messages.ServerSpec{Name: name, Transport: messages.TransportStdio, Command: "x", Fingerprint: "v1",
			Source: messages.Position{Path: "mcp.json", Line: i + 1}})
	}
	var spawned []reconciler.Spawn
	for _, e := range r.fleet.Step(reconciler.DesiredArrived{Now: rig.now, Desired: d}) {
		if s, ok := e.(reconciler.Spawn); ok {
			spawned = append(spawned, s)
		}
	}
	for _, s := range spawned {
		c := rig.cats[s.Spec.Name]
		r.fleet.Step(reconciler.SessionReady{Now: rig.now, Server: s.Spec.Name, Session: s.Session, Tools: c.Tools,
			Prompts: c.Prompts, Resources: c.Resources, Templates: c.Templates})
	}
	names, _ := r.fleet.TakeChanged()
	r.refreshView(names)
	rig.r = r
}

// BenchmarkCatalog_BuildFromScratch: 50 servers, each 100 tools, 100
// prompts and 1,000 resources, from nothing to a readable view.
func BenchmarkCatalog_BuildFromScratch(b *testing.B) {
	rig := newBenchRig(b)
	cpu := startCPU(b)
	for b.Loop() {
		rig.build()
	}
	cpu.report()
	if got := len(rig.r.view.Load().Resources()); got != benchServers*benchResources {
		b.Fatalf("%d resources in the view", got)
	}
}

// BenchmarkCatalog_OneServerListChanged: one server of the 50 lists its
// resources again with one changed; the fleet diffs and indexes that
// server's items and the view rebuilds only its row.
func BenchmarkCatalog_OneServerListChanged(b *testing.B) {
	rig := newBenchRig(b)
	rig.build()
	r := rig.r
	row, _ := r.fleet.Row("s25")
	versions := [2]session.Catalog{benchCatalog("s25", 1), benchCatalog("s25", 2)}
	cpu := startCPU(b)
	i := 0
	for b.Loop() {
		c := versions[i%2]
		i++
		effects := r.fleet.Step(reconciler.SessionResources{Server: "s25", Session: row.Status.Session, Resources: c.Resources, Templates: c.Templates})
		if len(effects) != 1 {
			b.Fatalf("%d effects, want one resources.changed", len(effects))
		}
		names, _ := r.fleet.TakeChanged()
		r.refreshView(names)
	}
	cpu.report()
}

// cpuMeter reports the process's CPU time per op (user + system, every
// thread, the collector's included) beside the wall time: on a shared
// machine the wall time also counts the time other processes had the CPU.
type cpuMeter struct {
	b     *testing.B
	start time.Duration
}

func startCPU(b *testing.B) cpuMeter {
	b.ResetTimer()
	return cpuMeter{b: b, start: benchcpu.Process()}
}

func (m cpuMeter) report() {
	m.b.StopTimer()
	used := benchcpu.Process() - m.start
	m.b.ReportMetric(float64(used.Nanoseconds())/float64(m.b.N)/1e6, "cpu-ms/op")
}
