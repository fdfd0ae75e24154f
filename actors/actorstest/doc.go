// Package actorstest drives mcpvisor's actors by message injection in
// tests, in the style of tailscale's eventbustest: inject a message into
// an actor (Supervisor.PIDs, ActorSystem().Root.Send), then assert on the
// events that follow, with a bounded test context as the only deadline
// and a barrier, not a timeout, to prove that nothing else happened.
//
//	ctx := actorstest.Context(t)
//	w := actorstest.NewWatcher(t, sup)
//	sup.ActorSystem().Root.Send(sup.PIDs().Reconciler, &messages.ServerFailed{...})
//	if err := actorstest.Expect(w,
//		func(e *messages.ServerStateChanged) bool { return e.To == messages.StateFailed },
//		actorstest.Type[*messages.ToolsChanged](),
//	); err != nil {
//		t.Fatal(err)
//	}
//	actorstest.Barrier(ctx, t, sup.ActorSystem(), sup.PIDs().Reconciler)
//
// A Watcher follows a Supervisor (or any journal.Journal) from its first
// event with Supervisor.Follow, so it misses nothing and sees every event
// once, in order. Expect and ExpectExactly take filters: a func with one
// argument of an event type (*messages.ServerStateChanged, or
// messages.Event for any), returning nothing (any event of that type
// matches), a bool (true matches) or an error (nil matches; the error
// says why not).
//
// Goroutines: a Watcher holds one feed (its goroutine belongs to package
// actors), closed at test cleanup. Barrier waits on one goroutine of its
// own, which ends with the answer. Nothing else runs in the background.
package actorstest
