package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// events answers GET /api/v1/events with a server-sent event stream: each
// event's id is its sequence number, its event name its EventType and its
// data a StreamEvent. With ?since=N or a Last-Event-ID header (which wins,
// being what a reconnecting client sends) the journal's events after N are
// replayed first. The stream then follows live events without a gap or a
// duplicate (Fleet.Follow guarantees both, and announces what the journal
// no longer keeps as a stream.truncated event), sends a comment every
// Heartbeat, and ends when the client goes away or the server shuts down.
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
	st := &stream{w: w, rc: http.NewResponseController(w)}
	st.comment("mcpvisor events")
	st.flush()

	if !replay {
		since = journal.Live
	}
	feed := s.fleet.Follow(since, 256)
	defer feed.Close()
	// The ticker is made after Follow: a test that traps it knows the
	// stream follows.
	heartbeat := s.clock.NewTicker(s.opts.Heartbeat, "httpapi", "heartbeat")
	defer heartbeat.Stop("httpapi", "heartbeat")
	for st.err == nil {
		st.flush()
		select {
		case env, ok := <-feed.C:
			if !ok {
				return
			}
			st.write(env)
		case <-heartbeat.C:
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

// stream writes one client's events. The first write error ends it.
type stream struct {
	w   io.Writer
	rc  *http.ResponseController
	err error
}

func (st *stream) write(env *messages.Envelope) {
	if tr, ok := env.Event.(*messages.FeedTruncated); ok {
		st.truncated(tr)
		return
	}
	if st.err != nil {
		return
	}
	ev, err := json.Marshal(env.Event)
	if err != nil {
		ev, _ = json.Marshal(ErrorBody{Error: "event not encodable: " + err.Error()})
	}
	data, _ := json.Marshal(StreamEvent{Seq: env.Seq, Time: env.Time, Type: env.Event.EventType(), Event: ev})
	_, st.err = fmt.Fprintf(st.w, "id: %d\nevent: %s\ndata: %s\n\n", env.Seq, env.Event.EventType(), data)
}

// truncated announces a gap; it has no id, so a client's Last-Event-ID
// stays the last real event.
func (st *stream) truncated(tr *messages.FeedTruncated) {
	if st.err != nil {
		return
	}
	data, _ := json.Marshal(StreamTruncated{Since: tr.Since, Next: tr.Next, Reason: tr.Reason})
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
