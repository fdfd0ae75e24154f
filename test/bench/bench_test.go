package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The quantiles are nearest-rank: p99 of 20 values is the largest.
func TestSample_Quantiles(t *testing.T) {
	t.Parallel()
	var s sample
	for i := 20; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	if got := s.median(); got != 10500*time.Microsecond {
		t.Errorf("median = %v, want 10.5ms", got)
	}
	if got := s.p99(); got != 20*time.Millisecond {
		t.Errorf("p99 = %v, want 20ms", got)
	}
	if got := s.min(); got != time.Millisecond {
		t.Errorf("min = %v, want 1ms", got)
	}
}

// The event log parses the API's SSE framing (comments, id and event
// lines, one data line) and finds events by server.
func TestEventLog_ParsesStream(t *testing.T) {
	t.Parallel()
	stream := ": mcpvisor events\n\n" +
		"id: 1\nevent: config.loaded\ndata: {\"seq\":1,\"time\":\"2026-11-30T10:28:38.443442589Z\",\"type\":\"config.loaded\",\"event\":{\"generation\":1}}\n\n" +
		": heartbeat\n\n" +
		"id: 2\nevent: tools.changed\ndata: {\"seq\":2,\"time\":\"2026-11-30T10:28:38.5Z\",\"type\":\"tools.changed\",\"event\":{\"server\":\"a\",\"session\":1,\"tools\":[{\"server\":\"a\",\"name\":\"echo\",\"hash\":\"x\"}],\"added\":[\"echo\"],\"removed\":[],\"changed\":[]}}\n\n"
	l := newEventLog(newReaper().visorEvent)
	l.finish(l.read(strings.NewReader(stream)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ev, next, err := l.wait(ctx, 0, func(e event) bool { return e.toolsUp("a") })
	if err != nil || ev.Seq != 2 || next != 2 {
		t.Fatalf("wait = seq %d, next %d, %v; want seq 2, next 2", ev.Seq, next, err)
	}
	if _, _, err := l.wait(ctx, next, func(event) bool { return true }); err == nil {
		t.Error("wait past the end of a finished stream returned no error")
	}
}

// mcp-hub's stream: logs are dropped, hub_state and subscription events
// kept with their change sets.
func TestEventLog_ParsesHubStream(t *testing.T) {
	t.Parallel()
	stream := "event: log\ndata: {\"type\":\"info\",\"message\":\"x\"}\n\n" +
		"event: hub_state\ndata: {\"state\":\"starting\"}\n\n" +
		"event: subscription_event\ndata: {\"type\":\"servers_updated\",\"changes\":{\"added\":[\"fs\"],\"removed\":[],\"modified\":[],\"unchanged\":[\"a\"]}}\n\n"
	l := newEventLog(hubEvent)
	l.finish(l.read(strings.NewReader(stream)))
	evs := l.since(0)
	if len(evs) != 2 || evs[0].HubState != "starting" || !(&hubManager{}).editDone("fs")(evs[1]) {
		t.Fatalf("events = %+v", evs)
	}
}

// -only gateway picks the gateway's scenarios, and only those.
func TestParseFlags_Gateway(t *testing.T) {
	t.Parallel()
	o, err := parseFlags([]string{"-only", "gateway"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"call", "throughput", "start", "notify"} {
		if !o.runs(s) {
			t.Errorf("-only gateway does not run %s", s)
		}
	}
	if o.runs("edit") || o.runs("peers") {
		t.Errorf("-only gateway runs %q", o.only)
	}
	if _, err := parseFlags([]string{"-only", "call", "-call-rounds", "0"}); err == nil {
		t.Error("-call-rounds 0 accepted")
	}
}

// The call verdicts read the targets off the medians: added over the
// direct call, against 1.2 × the hop of the same kind + 20 µs, and half
// of what mcp-hub adds.
func TestCallVerdicts(t *testing.T) {
	t.Parallel()
	of := func(d time.Duration) sample { return sample{d, d, d} }
	lat := map[string]sample{
		pathDirect:    of(300 * time.Microsecond),
		pathServe:     of(680 * time.Microsecond), // adds 380 ≤ 1.2×300+20 = 380
		pathRawHTTP:   of(400 * time.Microsecond),
		pathServeHTTP: of(900 * time.Microsecond), // adds 600 > 1.2×400+20 = 500
		pathHub:       of(1100 * time.Microsecond),
	}
	got := callVerdicts(lat, "x", true)
	for _, want := range []string{
		"stdio: added p50 380 µs against 1.2 × one stdio hop + 20 µs = 380 µs (ratio added / hop 1.27): met.",
		"added p50 600 µs (over the direct stdio call) against 1.2 × one raw HTTP hop (400 µs) + 20 µs = 500 µs: **missed**.",
		"serve over stdio adds 0.47× and over HTTP 0.75× of that; target at most 0.5×: met (stdio), **missed** (HTTP).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdicts lack %q:\n%s", want, got)
		}
	}
}
