package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
)

// stateEvent is a distinguishable event: server s moved to ready.
func stateEvent(s string) *messages.ServerStateChanged {
	return &messages.ServerStateChanged{Server: s, From: messages.StateStarting, To: messages.StateReady, Reason: "connected"}
}

// publishN publishes n state events.
func publishN(f *httpapitest.Fleet, n int) {
	for range n {
		f.Publish(stateEvent("alpha"))
	}
}

// readSeqs reads events until one with sequence number last, and returns
// every sequence number read; it checks that each event's id, name and data
// agree.
func readSeqs(t *testing.T, r *sseReader, last uint64) []uint64 {
	t.Helper()
	var seqs []uint64
	for {
		ev := r.nextEvent()
		var data httpapi.StreamEvent
		if err := json.Unmarshal([]byte(ev.data), &data); err != nil {
			t.Fatalf("event %+v: data: %v", ev, err)
		}
		if ev.id != strconv.FormatUint(data.Seq, 10) || ev.event != data.Type {
			t.Fatalf("event %+v disagrees with its data %+v", ev, data)
		}
		if _, err := httpapi.DecodeEvent(data); err != nil {
			t.Fatalf("decode %+v: %v", data, err)
		}
		seqs = append(seqs, data.Seq)
		if data.Seq >= last {
			return seqs
		}
	}
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// The stream replays the journal after since, then follows live events;
// an event published while the stream starts following (OnFollow) comes
// exactly once.
func TestEvents_ReplayThenLiveWithoutGapOrDuplicate(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	publishN(fleet, 3)
	fleet.OnFollow = func() { publishN(fleet, 1) } // seq 4
	followed := fleet.Followers()
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	res, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=1")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("= %d %q, want 200 text/event-stream", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if c := r.nextComment(); c != "mcpvisor events" {
		t.Fatalf("first comment %q", c)
	}
	<-followed
	if diff := cmp.Diff(seqRange(2, 4), readSeqs(t, r, 4)); diff != "" {
		t.Fatalf("replayed (-want +got):\n%s", diff)
	}
	publishN(fleet, 2)
	if diff := cmp.Diff(seqRange(5, 6), readSeqs(t, r, 6)); diff != "" {
		t.Fatalf("live (-want +got):\n%s", diff)
	}
}

// The whole wire form of one event.
func TestEvents_WireFormat(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	fleet.Publish(&messages.ServerStateChanged{Server: "alpha", Generation: 1, Session: 1, From: messages.StateStarting, To: messages.StateReady, Reason: "connected", PID: 41872})
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=0")
	ev := r.nextEvent()
	got := fmt.Sprintf("id: %s\nevent: %s\ndata: %s\n", ev.id, ev.event, ev.data)
	want := `id: 1
event: server.state
data: {"seq":1,"time":"2026-03-01T10:02:11.204Z","type":"server.state","event":{"server":"alpha","generation":1,"session":1,"from":"starting","to":"ready","reason":"connected","pid":41872}}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("wire form (-want +got):\n%s", diff)
	}
}

// A reconnecting client's Last-Event-ID wins over the since of its URL.
func TestEvents_LastEventIDWinsOverSince(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	publishN(fleet, 5)
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=0", "Last-Event-ID: 3")
	if diff := cmp.Diff(seqRange(4, 5), readSeqs(t, r, 5)); diff != "" {
		t.Fatalf("resumed (-want +got):\n%s", diff)
	}
}

// Without since, only events published after the request are sent, even
// one published while the stream subscribes.
func TestEvents_WithoutSinceFollowsLiveOnly(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	publishN(fleet, 3)
	fleet.OnFollow = func() { publishN(fleet, 1) } // seq 4: after the start
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	followed := fleet.Followers()
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events")
	r.nextComment()
	<-followed
	publishN(fleet, 1)
	if diff := cmp.Diff(seqRange(4, 5), readSeqs(t, r, 5)); diff != "" {
		t.Fatalf("live only (-want +got):\n%s", diff)
	}
}

// A slow stream (a feed buffer of 1, a burst of 200 events, heartbeats in
// between) still yields every event once, in order: the events wait in
// the journal, not in a buffer that overflows.
func TestEvents_SlowStreamGetsEveryEventOnce(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	fleet := &httpapitest.Fleet{Buffer: 1}
	ts, _ := api(t, httpapi.Options{Fleet: fleet, Clock: clock})
	ticker := clock.Trap().NewTicker("httpapi", "heartbeat")
	defer ticker.Close()

	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=0")
	ticker.MustWait(ctx).MustRelease(ctx) // subscribed: the ticker is made after Follow
	publishN(fleet, 200)
	clock.Advance(15 * time.Second).MustWait(ctx)
	if diff := cmp.Diff(seqRange(1, 200), readSeqs(t, r, 200)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
}

// An idle stream gets a heartbeat comment every Heartbeat.
func TestEvents_HeartbeatComments(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t)
	ts, _ := api(t, httpapi.Options{Clock: clock, Heartbeat: 10 * time.Second})
	ticker := clock.Trap().NewTicker("httpapi", "heartbeat")
	defer ticker.Close()

	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events")
	call := ticker.MustWait(ctx)
	if call.Duration != 10*time.Second {
		t.Fatalf("heartbeat every %s, want 10s", call.Duration)
	}
	call.MustRelease(ctx)
	r.nextComment() // the greeting
	for range 2 {
		clock.Advance(10 * time.Second).MustWait(ctx)
		if c := r.nextComment(); c != "heartbeat" {
			t.Fatalf("comment %q, want heartbeat", c)
		}
	}
}

// Events no longer kept are announced, then the stream resumes at the
// oldest kept one.
func TestEvents_TruncatedJournalIsAnnounced(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{Keep: 2}
	publishN(fleet, 5)
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events?since=1")

	ev := r.nextEvent()
	var tr httpapi.StreamTruncated
	if err := json.Unmarshal([]byte(ev.data), &tr); err != nil || ev.event != httpapi.EventTruncated || ev.id != "" || tr.Since != 1 || tr.Next != 4 {
		t.Fatalf("first event %+v (%+v, %v), want stream.truncated without id, since 1, next 4", ev, tr, err)
	}
	if diff := cmp.Diff(seqRange(4, 5), readSeqs(t, r, 5)); diff != "" {
		t.Fatalf("after the gap (-want +got):\n%s", diff)
	}
}

// A Last-Event-ID from before a daemon restart (beyond the newest event)
// replays everything kept after a notice, instead of skipping events
// until the numbers catch up.
func TestEvents_IDFromAnEarlierDaemonReplaysAll(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	publishN(fleet, 3)
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	_, r := openEvents(ctx, t, ts.URL+"/api/v1/events", "Last-Event-ID: 900")
	if ev := r.nextEvent(); ev.event != httpapi.EventTruncated || !strings.Contains(ev.data, "restarted") {
		t.Fatalf("first event %+v, want a stream.truncated notice about a restart", ev)
	}
	if diff := cmp.Diff(seqRange(1, 3), readSeqs(t, r, 3)); diff != "" {
		t.Fatalf("replayed (-want +got):\n%s", diff)
	}
	publishN(fleet, 1)
	if diff := cmp.Diff(seqRange(4, 4), readSeqs(t, r, 4)); diff != "" {
		t.Fatalf("live (-want +got):\n%s", diff)
	}
}

func TestEvents_BadSinceIs400(t *testing.T) {
	t.Parallel()
	ts, _ := api(t, httpapi.Options{})
	for _, tc := range []struct{ path, header string }{
		{"/api/v1/events?since=-1", ""},
		{"/api/v1/events?since=abc", ""},
		{"/api/v1/events", "Last-Event-ID: x"},
	} {
		var hs []string
		if tc.header != "" {
			hs = append(hs, tc.header)
		}
		if res := request(t, ts, http.MethodGet, tc.path, "", hs...); res.code != http.StatusBadRequest {
			t.Errorf("%s %s = %d, want 400", tc.path, tc.header, res.code)
		}
	}
}

// When the client goes away the stream's subscription is closed.
func TestEvents_ClientGoneClosesTheSubscription(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	followed, unfollowed := fleet.Followers(), fleet.Unfollowers()
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	streamCtx, cancel := context.WithCancel(ctx)
	_, r := openEvents(streamCtx, t, ts.URL+"/api/v1/events")
	r.nextComment()
	<-followed
	cancel()
	select {
	case <-unfollowed:
	case <-ctx.Done():
		t.Fatal("the subscription is still open after the client went away")
	}
	if n := fleet.Following(); n != 0 {
		t.Fatalf("%d feeds open", n)
	}
}
