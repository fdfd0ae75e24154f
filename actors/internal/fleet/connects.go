package fleet

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors/internal/session"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// connectSampler is the fleet actor's half of the connect policy
// (reconciler/fleet_connects.go): which sessions are connecting, what
// their process groups last read (proc_cpu.go), and the timer of
// the sample the fleet asked for. The reading runs on a goroutine the
// fleet actor starts (and Deps.Work counts) and
// comes back as a message.
type connectSampler struct {
	conns map[uint64]*connectingSession
	timer *quartz.Timer
	// pgrps caches the process group of every pid read so far; the
	// reading goroutine has it while a sample is being read.
	pgrps map[int]int
}

// connectingSession is a session between spawn and ready: remote (no
// local process: its handshake costs the machine no CPU) or, once its
// process has started, the process group it leads and its last reading.
type connectingSession struct {
	remote bool
	pgid   int
	last   cpuReading
}

// Messages private to the fleet actor's connect sampling.
type (
	sampleDue       struct{}
	connectsReadMsg struct {
		readings map[uint64]cpuReading // by session
		pgrps    map[int]int           // the cache, handed back
	}
)

// connectSpawned notes a session the fleet spawned as connecting.
func (r *fleetActor) connectSpawned(e reconciler.Spawn) {
	if r.connects.conns == nil {
		r.connects.conns = map[uint64]*connectingSession{}
	}
	switch e.Spec.Transport {
	case messages.TransportHTTP, messages.TransportSSE:
		r.connects.conns[e.Session] = &connectingSession{remote: true}
	default:
		r.connects.conns[e.Session] = &connectingSession{}
	}
}

// connectStarted records the process group of a connecting session; its
// baseline is nothing used, now.
func (r *fleetActor) connectStarted(m *session.Spawned) {
	if cs := r.connects.conns[m.ID]; cs != nil && m.PID > 0 {
		cs.pgid, cs.last = m.PID, cpuReading{at: r.deps.Clock.Now("fleet", "connect-sample")}
	}
}

// connectEnded forgets a session that is no longer connecting.
func (r *fleetActor) connectEnded(id uint64) { delete(r.connects.conns, id) }

// armSample arms the sample the fleet asked for; its callback only sends.
func (r *fleetActor) armSample(c actor.Context, e reconciler.SampleConnects) {
	r.stopSample()
	r.connects.timer = r.deps.Clock.AfterFunc(e.Delay, sendToSelf(c, &sampleDue{}), "fleet", "connect-sample")
}

func (r *fleetActor) stopSample() {
	if r.connects.timer != nil {
		r.connects.timer.Stop("fleet", "connect-sample")
		r.connects.timer = nil
	}
}

// sampleConnects reads the process groups of the connecting sessions on
// a goroutine; with none to read, it answers at once.
func (r *fleetActor) sampleConnects(c actor.Context) {
	r.connects.timer = nil
	groups := map[int]uint64{} // pgid → session
	for id, cs := range r.connects.conns {
		if cs.pgid > 0 {
			groups[cs.pgid] = id
		}
	}
	if len(groups) == 0 {
		r.connectsRead(c, &connectsReadMsg{})
		return
	}
	self, root, clock := c.Self(), c.ActorSystem().Root, r.deps.Clock
	pgrps := r.connects.pgrps
	if pgrps == nil {
		pgrps = map[int]int{}
	}
	r.connects.pgrps = nil // the goroutine's until it reports
	r.deps.Work.Add(1)
	go func() {
		defer r.deps.Work.Done()
		leaders := make(map[int]bool, len(groups))
		for pgid := range groups {
			leaders[pgid] = true
		}
		ns := readGroupCPU(hostProc, leaders, pgrps)
		at := clock.Now("fleet", "connect-sample")
		readings := make(map[uint64]cpuReading, len(ns))
		for pgid, v := range ns {
			readings[groups[pgid]] = cpuReading{ns: v, at: at}
		}
		root.Send(self, &connectsReadMsg{readings: readings, pgrps: pgrps})
	}()
}

// connectsRead turns the readings into the fleet's sample: remote
// connects are idle; a group read for the first time is compared with
// its start.
func (r *fleetActor) connectsRead(c actor.Context, m *connectsReadMsg) {
	if m.pgrps != nil {
		r.connects.pgrps = m.pgrps
	}
	in := reconciler.ConnectsSampled{Now: r.now()}
	for id, cs := range r.connects.conns {
		if cs.remote {
			in.Idle = append(in.Idle, id)
			continue
		}
		now, ok := m.readings[id]
		if !ok {
			continue // not started yet, or gone: not sampled
		}
		if idleSince(cs.last, now) {
			in.Idle = append(in.Idle, id)
		} else {
			in.Busy = append(in.Busy, id)
		}
		cs.last = now
	}
	r.step(c, in)
	r.log.Debug("connects sampled", zap.Int("idle", len(in.Idle)), zap.Int("busy", len(in.Busy)))
}
