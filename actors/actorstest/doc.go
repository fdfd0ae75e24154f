// Package actorstest drives a Supervisor's actors by message injection in
// tests, in the style of tailscale's eventbustest: record its events from
// the first one, inject a message into one of its core actors, wait for
// the events that follow, with a bounded test context as the only
// deadline and a barrier, not a timeout, to prove that nothing else
// happened. The Supervisor's own API names nothing of its actors; this
// package reaches them for tests only.
//
//	ctx := actorstest.Context(t)
//	rec := actorstest.Record(t, sup)
//	_, ready := rec.WaitState(ctx, 0, "alpha", messages.StateReady)
//	mark := rec.Len()
//	actorstest.Send(t, sup, actorstest.Fleet, &messages.ServerFailed{Server: "alpha", Session: ready.Session})
//	rec.WaitState(ctx, mark, "alpha", messages.StateFailed)
//	actorstest.Barrier(ctx, t, sup, actorstest.Fleet)
//	if got := rec.StateChanges(mark, "beta"); len(got) != 0 { // beta untouched
//		t.Fatalf("beta changed: %v", got)
//	}
//
// A Recorder follows a Supervisor (or any journal.Journal) from its first
// event, so it misses nothing and sees every event once, in order; a gap
// (events the journal dropped before the test read them) fails the test.
// OnPublish sees events at the moment they are published, on the
// publishing goroutine, for tests of what is visible then.
//
// Goroutines: a Recorder holds one feed (its goroutine is the journal's),
// closed at test cleanup. Barrier waits on one goroutine of its own,
// which ends with the answer. Nothing else runs in the background.
package actorstest
