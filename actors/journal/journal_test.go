package journal_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// publishN publishes n small events.
func publishN(j *journal.Journal, n int) {
	for range n {
		j.Publish(&messages.WatcherDegraded{Reason: "x"})
	}
}

// next reads one envelope from f; the test context is the only deadline.
func next(ctx context.Context, t *testing.T, f *journal.Feed) *messages.Envelope {
	t.Helper()
	select {
	case env, ok := <-f.C:
		if !ok {
			t.Fatal("feed closed")
		}
		return env
	case <-ctx.Done():
		t.Fatalf("no event: %v", ctx.Err())
		return nil
	}
}

// readSeqs reads n events and returns their sequence numbers.
func readSeqs(ctx context.Context, t *testing.T, f *journal.Feed, n int) []uint64 {
	t.Helper()
	out := make([]uint64, 0, n)
	for range n {
		out = append(out, next(ctx, t, f).Seq)
	}
	return out
}

func span(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// The journal is bounded in bytes as well as in count: events with long
// stderr tails push the oldest out long before the count bound, and the
// bytes kept never exceed the bound (a stderr-heavy fleet once took the
// daemon's memory from 53 to 265 MB).
func TestJournal_BoundedInBytes(t *testing.T) {
	t.Parallel()
	const maxBytes = 64 << 10
	j := journal.New(journal.Options{MaxEvents: 4096, MaxBytes: maxBytes})
	tail := make([]string, 16)
	for i := range tail {
		tail[i] = strings.Repeat("e", 1024)
	}
	for range 100 {
		j.Publish(&messages.ServerStateChanged{Server: "noisy", From: messages.StateStarting, To: messages.StateFailed, StderrTail: tail})
		if _, bytes := j.Kept(); bytes > maxBytes {
			t.Fatalf("journal keeps %d bytes, bound %d", bytes, maxBytes)
		}
	}
	events, bytes := j.Kept()
	if events < 2 || events > 4 {
		t.Fatalf("kept %d events of ~16 KiB in %d bytes; want the 3 or so that fit in %d", events, bytes, maxBytes)
	}
	kept, truncated := j.Since(0)
	if !truncated || kept[len(kept)-1].Seq != 100 || len(kept) != events {
		t.Fatalf("Since(0) = %d events ending at %d, truncated %v; want the newest %d, truncated", len(kept), kept[len(kept)-1].Seq, truncated, events)
	}

	// One event larger than the whole bound is still kept, alone.
	huge := strings.Repeat("h", 2*maxBytes)
	j.Publish(&messages.WatcherDegraded{Reason: huge})
	if events, _ := j.Kept(); events != 1 {
		t.Fatalf("after an oversized event %d kept, want just it", events)
	}
	// The count bound still holds on its own.
	small := journal.New(journal.Options{MaxEvents: 4})
	publishN(small, 6)
	if got, _ := small.Since(0); !slices.Equal(seqsOf(got), []uint64{3, 4, 5, 6}) {
		t.Fatalf("count-bounded journal keeps %v, want 3..6", seqsOf(got))
	}
}

func seqsOf(envs []*messages.Envelope) []uint64 {
	out := []uint64{}
	for _, e := range envs {
		out = append(out, e.Seq)
	}
	return out
}

// A follower that does not read while a thousand events are published
// (its buffer holds two) never blocks the publisher, and then gets every
// event exactly once, in order: it falls behind into the journal, not
// into a drop.
func TestFeed_SlowFollowerGetsEveryEventOnce(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{})
	publishN(j, 10)
	f := j.Follow(4, 2)
	defer f.Close()
	publishN(j, 990) // returns: the publisher never waits for the follower
	if got := readSeqs(ctx, t, f, 996); !slices.Equal(got, span(5, 1000)) {
		t.Fatalf("delivered %d events, first %v; want 5..1000 once each", len(got), got[:min(len(got), 5)])
	}
	// Live events follow, also while the reader keeps pace.
	done := make(chan struct{})
	go func() {
		defer close(done)
		publishN(j, 100)
	}()
	if got := readSeqs(ctx, t, f, 100); !slices.Equal(got, span(1001, 1100)) {
		t.Fatalf("live: delivered %v, want 1001..1100", got)
	}
	<-done
}

// A follower that falls behind by more than the journal keeps gets one
// truncation notice naming the gap, then the oldest kept events, then
// live ones: it recovers by itself, and no event comes twice.
func TestFeed_FollowerBehindThePastRecovers(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{MaxEvents: 8})
	f := j.Follow(0, 1)
	defer f.Close()
	publishN(j, 50) // only 43..50 are still kept
	// The feed may have taken some of the first events before they were
	// dropped: whatever it delivers is in order, and the only jump is
	// announced, ending at 43.
	var last uint64
	var notices []*messages.FeedTruncated
	for last != 50 {
		env := next(ctx, t, f)
		if tr, ok := env.Event.(*messages.FeedTruncated); ok {
			if env.Seq != 0 || tr.Since != last || tr.Next > 43 {
				t.Fatalf("notice %+v (seq %d) after event %d; want since=%d, next<=43", tr, env.Seq, last, last)
			}
			notices = append(notices, tr)
			last = tr.Next - 1
			continue
		}
		if env.Seq != last+1 {
			t.Fatalf("event %d after %d: a gap or a duplicate", env.Seq, last)
		}
		last = env.Seq
	}
	if len(notices) != 1 || !strings.Contains(notices[0].Reason, "fell behind") {
		t.Fatalf("notices %+v, want exactly one saying the follower fell behind", notices)
	}
	publishN(j, 1)
	if env := next(ctx, t, f); env.Seq != 51 {
		t.Fatalf("then %d, want live event 51", env.Seq)
	}
}

// Follow replays after since, then goes live; Live skips the past; a
// since beyond the newest event (an earlier run's number) replays all
// after a notice.
func TestFeed_ReplayThenLive(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{})
	publishN(j, 5)
	replay, live, stale := j.Follow(2, 16), j.Follow(journal.Live, 16), j.Follow(9, 16)
	defer replay.Close()
	defer live.Close()
	defer stale.Close()
	publishN(j, 1)
	if got := readSeqs(ctx, t, replay, 4); !slices.Equal(got, []uint64{3, 4, 5, 6}) {
		t.Errorf("Follow(2) = %v, want 3..6", got)
	}
	if got := readSeqs(ctx, t, live, 1); !slices.Equal(got, []uint64{6}) {
		t.Errorf("Follow(Live) = %v, want 6", got)
	}
	first := next(ctx, t, stale)
	if tr, ok := first.Event.(*messages.FeedTruncated); !ok || tr.Since != 9 || tr.Next != 1 || !strings.Contains(tr.Reason, "no event 9 yet") {
		t.Errorf("Follow(9) starts with %+v, want a notice since=9 next=1", first.Event)
	}
	if got := readSeqs(ctx, t, stale, 6); !slices.Equal(got, span(1, 6)) {
		t.Errorf("Follow(9) then = %v, want 1..6", got)
	}

	// The same from a journal that already dropped its oldest: one notice.
	small := journal.New(journal.Options{MaxEvents: 2})
	publishN(small, 5)
	f := small.Follow(9, 16)
	defer f.Close()
	if tr, ok := next(ctx, t, f).Event.(*messages.FeedTruncated); !ok || tr.Next != 4 {
		t.Errorf("Follow(9) on 4..5 starts with %+v, want one notice, next=4", tr)
	}
	if got := readSeqs(ctx, t, f, 2); !slices.Equal(got, []uint64{4, 5}) {
		t.Errorf("then %v, want 4, 5 (no second notice)", got)
	}
}

// Closing the journal ends every feed after its last event; closing a
// feed closes C at once, twice is fine, and publishing goes on.
func TestFeed_EndsAfterTheLastEvent(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{})
	publishN(j, 3)
	f, unread := j.Follow(0, 1), j.Follow(0, 1)
	j.Close()
	if got := readSeqs(ctx, t, f, 3); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("delivered %v, want 1..3", got)
	}
	select {
	case env, ok := <-f.C:
		if ok {
			t.Fatalf("after the last event: %d, want C closed", env.Seq)
		}
	case <-ctx.Done():
		t.Fatal("C not closed after the journal closed")
	}
	f.Close()
	unread.Close() // its goroutine was waiting to send: Close ends it
	unread.Close()
	for range unread.C {
	}
	publishN(j, 1)
}

// A feed asked for events the journal no longer keeps starts with a
// notice saying so, then the oldest kept.
func TestFeed_StartBeforeTheOldestKept(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{MaxEvents: 4})
	publishN(j, 10)
	f := j.Follow(0, 8)
	defer f.Close()
	first := next(ctx, t, f)
	if tr, ok := first.Event.(*messages.FeedTruncated); !ok || tr.Since != 0 || tr.Next != 7 || tr.Reason != "older events are no longer kept" {
		t.Fatalf("first = %+v, want a notice since=0 next=7", first.Event)
	}
	if got := readSeqs(ctx, t, f, 4); !slices.Equal(got, span(7, 10)) {
		t.Fatalf("then %v, want 7..10", got)
	}
}

// panickingStream is an event stream whose subscriber panics.
type panickingStream struct{}

func (panickingStream) Publish(any) { panic("subscriber bug") }

// A panicking event stream subscriber (an embedder's, on a shared actor
// system) never fails the publisher: the event is kept and followed.
func TestJournal_PanickingStreamSubscriberIsContained(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	core, logs := observer.New(zapcore.ErrorLevel)
	j := journal.New(journal.Options{Stream: panickingStream{}, Logger: zap.New(core)})
	f := j.Follow(0, 4)
	defer f.Close()
	j.Publish(&messages.WatcherDegraded{Reason: "x"})
	if env := next(ctx, t, f); env.Seq != 1 {
		t.Fatalf("followed %d, want event 1", env.Seq)
	}
	if got := logs.FilterMessage("event stream subscriber panicked; the event is kept in the journal").Len(); got != 1 {
		t.Fatalf("%d error logs about the subscriber, want 1", got)
	}
}

// Finish ends a feed after the events published before it, however far
// behind its reader is: what a consumer that must see everything up to
// its stop (the metrics) uses.
func TestFeed_FinishDeliversWhatCameBefore(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	j := journal.New(journal.Options{})
	f := j.Follow(0, 1)
	defer f.Close()
	publishN(j, 5)
	f.Finish()
	publishN(j, 3) // after Finish: not delivered
	var got []uint64
	for {
		select {
		case env, ok := <-f.C:
			if !ok {
				if !slices.Equal(got, span(1, 5)) {
					t.Fatalf("delivered %v, want 1..5", got)
				}
				return
			}
			got = append(got, env.Seq)
		case <-ctx.Done():
			t.Fatalf("C not closed after Finish; delivered %v", got)
		}
	}
}
