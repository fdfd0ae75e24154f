package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/mcpvisor/mcpvisor/messages"
)

// events answers GET /api/v1/events with a server-sent event stream: each
// event's id is its sequence number, its event name its EventType and its
// data a StreamEvent. With ?since=N or a Last-Event-ID header (which wins,
// being what a reconnecting client sends) the journal's events after N are
// replayed first. The stream then follows live events without a gap or a
// duplicate, sends a comment every Heartbeat, and ends when the client
// goes away or the server shuts down.
//
// Order of operations, which is what makes it gap-free: subscribe first,
// then replay from the journal, then pass on live events newer than the
// last one written. A live event that skips ahead (the subscription
// dropped some) is preceded by the missing ones, read from the journal.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	since, replay, err := streamStart(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	st := &stream{w: w, rc: http.NewResponseController(w), fleet: s.fleet}
	st.comment("mcpvisor events")
	st.flush()

	// Live only: the baseline is taken before subscribing, so an event
	// published in between is not skipped: it is either delivered or, if
	// the first live event skips ahead, read from the journal.
	var baseline uint64
	if !replay {
		baseline = newestSeq(s.fleet)
	}
	feed := s.fleet.Follow(256)
	defer feed.Close()
	heartbeat := s.clock.NewTicker(s.opts.Heartbeat, "httpapi", "heartbeat")
	defer heartbeat.Stop("httpapi", "heartbeat")
	if replay {
		st.replay(since)
	} else {
		st.last = baseline
	}
	dropped := uint64(0)
	for st.err == nil {
		st.flush()
		select {
		case env, ok := <-feed.Events():
			if !ok {
				return
			}
			st.live(env)
		case <-heartbeat.C:
			if n := feed.Dropped(); n != dropped {
				dropped = n
				st.catchUp() // the dropped events may have been the newest
			}
			st.comment("heartbeat")
		case <-r.Context().Done():
			return
		}
	}
}

// streamStart reads where the client wants to resume from.
func streamStart(r *http.Request) (since uint64, replay bool, err error) {
	v, from := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, from = r.URL.Query().Get("since"), "since"
	}
	if v == "" {
		return 0, false, nil
	}
	since, err = strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s %q: want an event sequence number (0 replays every kept event)", from, v)
	}
	return since, true, nil
}

// newestSeq is the sequence number of the newest event kept, 0 if none.
func newestSeq(f Fleet) uint64 {
	all, _ := f.EventsSince(0)
	if len(all) == 0 {
		return 0
	}
	return all[len(all)-1].Seq
}

// stream writes one client's events. The first write error ends it.
type stream struct {
	w     io.Writer
	rc    *http.ResponseController
	fleet Fleet
	last  uint64 // sequence number of the newest event written
	err   error
}

// replay writes the kept events after since. A since beyond the newest
// event comes from an earlier run of the daemon (numbers began again): then
// everything kept is replayed, after a stream.truncated notice.
func (st *stream) replay(since uint64) {
	evs, truncated := st.fleet.EventsSince(since)
	if len(evs) == 0 && since > 0 {
		if newest := newestSeq(st.fleet); newest < since {
			evs, _ = st.fleet.EventsSince(0)
			st.truncated(since, evs, fmt.Sprintf("no event %d yet: the daemon restarted and its sequence numbers began again", since))
			st.writeAll(evs)
			return
		}
	}
	if truncated {
		st.truncated(since, evs, "older events are no longer kept")
	}
	st.last = since
	st.writeAll(evs)
}

// live writes one event from the subscription, preceded by any it skipped.
func (st *stream) live(env *messages.Envelope) {
	switch {
	case env.Seq <= st.last:
		// Already written by the replay or a catch-up.
	case env.Seq == st.last+1:
		st.write(env)
	default:
		st.catchUp()
	}
}

// catchUp writes every kept event after the last one written.
func (st *stream) catchUp() {
	evs, truncated := st.fleet.EventsSince(st.last)
	if truncated {
		st.truncated(st.last, evs, "the client fell behind and older events are no longer kept")
	}
	st.writeAll(evs)
}

func (st *stream) writeAll(evs []*messages.Envelope) {
	for _, env := range evs {
		if env.Seq > st.last {
			st.write(env)
		}
	}
}

func (st *stream) write(env *messages.Envelope) {
	if st.err != nil {
		return
	}
	ev, err := json.Marshal(env.Event)
	if err != nil {
		ev, _ = json.Marshal(ErrorBody{Error: "event not encodable: " + err.Error()})
	}
	data, _ := json.Marshal(StreamEvent{Seq: env.Seq, Time: env.Time, Type: env.Event.EventType(), Event: ev})
	_, st.err = fmt.Fprintf(st.w, "id: %d\nevent: %s\ndata: %s\n\n", env.Seq, env.Event.EventType(), data)
	st.last = env.Seq
}

// truncated announces a gap; it has no id, so a client's Last-Event-ID
// stays the last real event.
func (st *stream) truncated(since uint64, next []*messages.Envelope, reason string) {
	if st.err != nil {
		return
	}
	t := StreamTruncated{Since: since, Reason: reason}
	if len(next) > 0 {
		t.Next = next[0].Seq
	}
	data, _ := json.Marshal(t)
	_, st.err = fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", EventTruncated, data)
}

func (st *stream) comment(text string) {
	if st.err == nil {
		_, st.err = fmt.Fprintf(st.w, ": %s\n\n", text)
	}
}

func (st *stream) flush() {
	if st.err == nil {
		st.err = st.rc.Flush()
	}
}
