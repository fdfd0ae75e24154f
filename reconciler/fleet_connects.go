package reconciler

import (
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The connect limit (FleetOptions.MaxConnects) is there against CPU
// stampedes: two hundred servers spawned at once on two cores make every
// one of them slow, and the machine with them. It is not there against
// servers that are merely slow to answer: twenty servers that each wait
// 200 ms before their handshake (on a network, a lock, a timer) cost the
// machine nothing while they wait, and queueing them in waves of eight
// makes a cold start three handshakes long instead of one.
//
// So a connect counts against the limit only while it competes for CPU.
// While servers are queued, the fleet asks the shell to sample the
// connecting processes (SampleConnects, every ConnectGrace); a connect
// that has been in its slot for at least ConnectGrace and whose process
// tree wanted almost no CPU over the last interval (neither ran nor
// waited to run: ConnectsSampled.Idle) leaves its slot and is "waiting":
// still starting, still bounded by the connect timeout, but a queued
// server takes its slot. A waiting connect whose processes want CPU again
// (ConnectsSampled.Busy) takes a slot back at once, even past the limit,
// and no queued server starts until the count is under the limit again.
// A server that computes through its start-up therefore always counts,
// and a stampede is bounded as before; one that sleeps frees its slot
// after one grace. A sample costs a walk of /proc, so while samples free
// nothing (a fleet of servers that compute while they start) they are
// spaced out, to two and then four graces; one that frees or retakes a
// slot brings the pace back to one grace. With ConnectGrace zero every
// connect counts until it ends, as a plain semaphore.

// SampleConnects asks the shell to sample, after Delay, how much CPU the
// process tree of every connecting session wants, and to step the fleet
// with a ConnectsSampled. At most one is outstanding.
type SampleConnects struct {
	Delay time.Duration
}

// ConnectsSampled is the shell's sample: Idle are the connecting sessions
// whose processes neither ran nor waited for a CPU over the last
// interval (or that have no local process: a remote server's handshake
// costs the machine nothing), Busy those that did. A session in neither
// was not sampled (its process is not known yet) and keeps its standing.
type ConnectsSampled struct {
	Now        time.Time
	Idle, Busy []uint64
}

func (SampleConnects) isEffect() {}
func (ConnectsSampled) isInput() {}

// connectsSampled applies a sample: idle connects past the grace leave
// their slots, busy waiting ones take theirs back.
func (f *Fleet) connectsSampled(m ConnectsSampled) {
	f.sampling = false
	moved := false
	for _, id := range m.Idle {
		if ref := f.inFlight[id]; ref != nil && ref.connecting && !f.now.Before(ref.spawned.Add(f.opts.ConnectGrace)) {
			ref.connecting, ref.waiting = false, true
			f.connecting--
			moved = true
		}
	}
	for _, id := range m.Busy {
		if ref := f.inFlight[id]; ref != nil && ref.waiting {
			ref.connecting, ref.waiting = true, false
			f.connecting++
			moved = true
		}
	}
	if moved {
		f.quietSamples = 0
	} else {
		f.quietSamples = min(f.quietSamples+1, maxSampleBackoff)
	}
}

// maxSampleBackoff caps the spacing of samples that free nothing at
// 2^maxSampleBackoff graces.
const maxSampleBackoff = 2

// requestSample asks for a sample while a queued server could take a
// slot that a waiting connect frees, or a waiting connect may need its
// slot back.
func (f *Fleet) requestSample() {
	if f.opts.ConnectGrace <= 0 || f.sampling || len(f.inFlight) == 0 || !f.queued() {
		return
	}
	f.sampling = true
	f.effect(SampleConnects{Delay: f.opts.ConnectGrace << f.quietSamples})
}

// queued reports whether a server waits for a connect slot (not only
// for a lazy start slot, which no sample frees).
func (f *Fleet) queued() bool {
	lazyFull := f.opts.MaxLazyStarts > 0 && f.lazyStarting >= f.opts.MaxLazyStarts
	for _, name := range f.queue {
		if s := f.servers[name]; s != nil && s.state == messages.StatePending && !(lazyFull && f.lazy(s)) {
			return true
		}
	}
	return false
}
