package watcher

import (
	"context"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testctx"

	"github.com/google/go-cmp/cmp"
)

// blockingConsumer records calls and blocks each one until released.
type blockingConsumer struct {
	calls   chan []string
	release chan struct{}
}

func newBlockingConsumer() *blockingConsumer {
	return &blockingConsumer{calls: make(chan []string, 10), release: make(chan struct{})}
}

func (c *blockingConsumer) onChange(paths []string) {
	c.calls <- paths
	<-c.release
}

func (c *blockingConsumer) next(ctx context.Context, t *testing.T) []string {
	t.Helper()
	select {
	case got := <-c.calls:
		return got
	case <-ctx.Done():
		t.Fatal("callback not called")
		return nil
	}
}

func TestDelivery_MergesWhileACallbackRuns(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	c := newBlockingConsumer()
	d := newDelivery(c.onChange, nil)
	go d.run()
	defer func() {
		d.stop()
		<-d.exited
	}()

	d.postChanged([]string{"/a"})
	if diff := cmp.Diff([]string{"/a"}, c.next(ctx, t)); diff != "" {
		t.Fatalf("first call (-want +got):\n%s", diff)
	}
	// Three reports while the consumer is stuck become one sorted call.
	d.postChanged([]string{"/c"})
	d.postChanged([]string{"/b", "/c"})
	d.postChanged([]string{"/a"})
	c.release <- struct{}{}
	if diff := cmp.Diff([]string{"/a", "/b", "/c"}, c.next(ctx, t)); diff != "" {
		t.Fatalf("merged call (-want +got):\n%s", diff)
	}
	c.release <- struct{}{}
}

func TestDelivery_StopDoesNotWaitForABlockedCallback(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	c := newBlockingConsumer()
	d := newDelivery(c.onChange, nil)
	go d.run()

	d.postChanged([]string{"/a"})
	c.next(ctx, t)
	d.postChanged([]string{"/b"}) // pending behind the blocked call

	stopped := make(chan bool, 1)
	go func() { stopped <- d.stop() }()
	select {
	case exited := <-stopped:
		if exited {
			t.Error("stop reported the goroutine exited while a callback ran")
		}
	case <-ctx.Done():
		t.Fatal("stop waited for a blocked callback")
	}

	close(c.release)
	select {
	case <-d.exited:
	case <-ctx.Done():
		t.Fatal("delivery goroutine did not exit after the callback returned")
	}
	select {
	case got := <-c.calls:
		t.Fatalf("callback %v dispatched after stop", got)
	default:
	}
}

func TestDelivery_StopWaitsForAnIdleGoroutine(t *testing.T) {
	t.Parallel()
	d := newDelivery(func([]string) {}, func(string) {})
	go d.run()
	if !d.stop() {
		t.Fatal("stop of an idle delivery did not wait for it to exit")
	}
	select {
	case <-d.exited:
	default:
		t.Fatal("stop returned before the goroutine exited")
	}
	if d.stop() {
		t.Error("second stop reported it waited")
	}
}

func TestDelivery_DegradedIsDeliveredBeforeChanges(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	var order []string
	done := make(chan struct{})
	d := newDelivery(
		func(paths []string) { order = append(order, paths...); close(done) },
		func(reason string) { order = append(order, "degraded: "+reason) },
	)
	// Both are pending before the goroutine starts.
	d.postChanged([]string{"/a"})
	d.postDegraded("no inotify")
	go d.run()
	defer d.stop()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("OnChange not called")
	}
	if diff := cmp.Diff([]string{"degraded: no inotify", "/a"}, order); diff != "" {
		t.Errorf("callback order (-want +got):\n%s", diff)
	}
}
