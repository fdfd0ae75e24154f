package actorstest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Source is what a Recorder follows: an *actors.Supervisor, or any
// *journal.Journal.
type Source interface {
	Follow(since uint64, buffer int) *journal.Feed
}

// Recorder keeps every event a Source published since it was created,
// in order; tests wait for the events they expect, from an index on. It
// is used from the test goroutine only.
type Recorder struct {
	t    testing.TB
	feed *journal.Feed
	all  []*messages.Envelope
}

// Record follows src's events from the first one, so nothing since Start
// is missed. It is closed at test cleanup.
func Record(t testing.TB, src Source) *Recorder {
	r := &Recorder{t: t, feed: src.Follow(0, 1024)}
	t.Cleanup(r.feed.Close)
	return r
}

// add records env; a gap (the journal dropped events the test never
// read) fails the test.
func (r *Recorder) add(env *messages.Envelope) {
	if tr, ok := env.Event.(*messages.FeedTruncated); ok {
		r.t.Fatalf("recorder lost events %d..%d: %s", tr.Since+1, tr.Next-1, tr.Reason)
	}
	r.all = append(r.all, env)
}

// WaitFor returns the first event, recorded or to come, after index from
// that satisfies match, and its index. The test context is the only deadline.
func (r *Recorder) WaitFor(ctx context.Context, from int, what string, match func(messages.Event) bool) (int, messages.Event) {
	r.t.Helper()
	for i := from; ; i++ {
		for i >= len(r.all) {
			select {
			case env, ok := <-r.feed.C:
				if !ok {
					r.t.Fatalf("waiting for %s: the supervisor's feed ended", what)
				}
				r.add(env)
			case <-ctx.Done():
				r.t.Fatalf("waiting for %s: %v\nevents so far:\n%s", what, ctx.Err(), r.Dump())
			}
		}
		if match(r.all[i].Event) {
			return i, r.all[i].Event
		}
	}
}

// WaitState waits for server to reach state to after index from.
func (r *Recorder) WaitState(ctx context.Context, from int, server string, to messages.State) (int, *messages.ServerStateChanged) {
	r.t.Helper()
	i, ev := r.WaitFor(ctx, from, server+" "+string(to), func(e messages.Event) bool {
		sc, ok := e.(*messages.ServerStateChanged)
		return ok && sc.Server == server && sc.To == to && sc.From != to
	})
	return i, ev.(*messages.ServerStateChanged)
}

// Len is the number of events recorded so far.
func (r *Recorder) Len() int { return len(r.all) }

// Since returns the recorded events from index i on.
func (r *Recorder) Since(i int) []messages.Event {
	out := make([]messages.Event, 0, len(r.all)-i)
	for _, env := range r.all[i:] {
		out = append(out, env.Event)
	}
	return out
}

// StateChanges lists server's transitions from index i on, as "from→to".
func (r *Recorder) StateChanges(i int, server string) []string {
	var out []string
	for _, e := range r.Since(i) {
		if sc, ok := e.(*messages.ServerStateChanged); ok && sc.Server == server {
			out = append(out, string(sc.From)+"→"+string(sc.To))
		}
	}
	return out
}

// Dump renders the recorded events, one per line, for failure messages.
func (r *Recorder) Dump() string {
	var b strings.Builder
	for _, env := range r.all {
		fmt.Fprintf(&b, "  %4d %-18s %+v\n", env.Seq, env.Event.EventType(), env.Event)
	}
	return b.String()
}
