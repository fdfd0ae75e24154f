package relay

import (
	"testing"
	"time"

	"github.com/coder/quartz"
)

// A chatty server gets a burst, then logRate a second, into the journal;
// what is left out is counted in the next message that gets in.
func TestLogLimiter_BurstThenRate(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t)
	l := newLogLimiter(clock)
	for i := range logBurst {
		if ok, _ := l.take(); !ok {
			t.Fatalf("message %d of the burst dropped", i)
		}
	}
	for range 5 {
		if ok, _ := l.take(); ok {
			t.Fatal("a message past the burst got in")
		}
	}
	clock.Advance(time.Second / logRate)
	ok, dropped := l.take()
	if !ok || dropped != 5 {
		t.Errorf("after 1/rate s: ok %v, dropped %d; want true, 5", ok, dropped)
	}
	if ok, _ := l.take(); ok {
		t.Error("two messages got in on one token")
	}
}
