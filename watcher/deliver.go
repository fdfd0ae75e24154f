package watcher

import (
	"slices"
	"sync"
)

// delivery runs the user's callbacks on a goroutine of their own, so the
// event loop never waits for a consumer and Close never waits for a blocked
// one. Work handed over while a callback runs is merged, not queued: the next
// OnChange gets the union of the paths, which is all a level-triggered
// consumer needs, and memory stays bounded however slow the consumer is.
//
// Dispatch and stop are serialised by mu. That is the whole Close contract:
// a callback is dispatched (inCallback set) only while stopped is false, so
// every callback is either dispatched before stop takes effect or never.
type delivery struct {
	onChange   func(paths []string)
	onDegraded func(reason string)

	wake   chan struct{} // capacity 1: "something is pending"
	quit   chan struct{} // closed by stop
	exited chan struct{} // closed when run returns

	mu         sync.Mutex
	paths      map[string]struct{} // changed paths not yet handed over
	reasons    []string            // degrade reasons not yet handed over
	stopped    bool
	inCallback bool
}

func newDelivery(onChange func([]string), onDegraded func(string)) *delivery {
	return &delivery{
		onChange:   onChange,
		onDegraded: onDegraded,
		wake:       make(chan struct{}, 1),
		quit:       make(chan struct{}),
		exited:     make(chan struct{}),
		paths:      map[string]struct{}{},
	}
}

// postChanged hands paths to the consumer. It never blocks.
func (d *delivery) postChanged(paths []string) {
	d.mu.Lock()
	for _, p := range paths {
		d.paths[p] = struct{}{}
	}
	d.mu.Unlock()
	d.poke()
}

// postDegraded hands a degrade reason to the consumer. It never blocks.
func (d *delivery) postDegraded(reason string) {
	d.mu.Lock()
	d.reasons = append(d.reasons, reason)
	d.mu.Unlock()
	d.poke()
}

func (d *delivery) poke() {
	select {
	case d.wake <- struct{}{}:
	default: // already poked; run will see everything pending
	}
}

// run is the delivery goroutine. It returns after stop, as soon as no
// callback is running.
func (d *delivery) run() {
	defer close(d.exited)
	for {
		select {
		case <-d.wake:
		case <-d.quit:
			return
		}
		for d.dispatchOne() {
		}
	}
}

// dispatchOne runs one pending callback, degrade reasons first (they explain
// what follows). It returns false when nothing is pending or stop was called.
func (d *delivery) dispatchOne() bool {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return false
	}
	var call func()
	switch {
	case len(d.reasons) > 0:
		reason := d.reasons[0]
		d.reasons = d.reasons[1:]
		if d.onDegraded != nil {
			call = func() { d.onDegraded(reason) }
		}
	case len(d.paths) > 0:
		paths := make([]string, 0, len(d.paths))
		for p := range d.paths {
			paths = append(paths, p)
		}
		clear(d.paths)
		slices.Sort(paths)
		if d.onChange != nil {
			call = func() { d.onChange(paths) }
		}
	default:
		d.mu.Unlock()
		return false
	}
	d.inCallback = call != nil
	d.mu.Unlock()

	if call != nil {
		call()
		d.mu.Lock()
		d.inCallback = false
		d.mu.Unlock()
	}
	return true
}

// stop ends delivery: no callback is dispatched after it returns. If a
// callback is running it is not waited for (it may be blocked on the very
// goroutine calling stop); run exits when it returns. stop reports whether
// it waited for run to exit; only the first call does anything.
func (d *delivery) stop() (exited bool) {
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return false
	}
	d.stopped = true
	busy := d.inCallback
	d.mu.Unlock()
	close(d.quit)
	if busy {
		return false
	}
	<-d.exited
	return true
}
