package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// event is one event read from a server-sent event stream: mcpvisor's
// /api/v1/events or mcp-hub's /api/events.
type event struct {
	At   time.Time // when the harness read it (has a monotonic reading)
	Seq  uint64    // mcpvisor's sequence number; for mcp-hub, the position
	Type string    // mcpvisor's type; for mcp-hub hub_state or the subscription event's type
	// mcpvisor only:
	Time  time.Time // mcpvisor's clock when it was published (wall clock)
	State *messages.ServerStateChanged
	Tools *toolsChanged
	// mcp-hub only:
	HubState string   // hub_state: starting, ready, ...
	Changes  *changes // servers_updating, servers_updated
}

// toolsChanged is the part of messages.ToolsChanged the harness reads;
// the tools themselves are skipped, not decoded (a fleet's worth of
// schemas would cost the harness CPU that the measured system competes
// for on a small machine).
type toolsChanged struct {
	Server  string     `json:"server"`
	Session uint64     `json:"session"`
	Tools   []struct{} `json:"tools"`
	Added   []string   `json:"added"`
	Removed []string   `json:"removed"`
}

// changes is what mcp-hub says a config edit did, per server name.
type changes struct {
	Added     []string `json:"added"`
	Removed   []string `json:"removed"`
	Modified  []string `json:"modified"`
	Unchanged []string `json:"unchanged"`
}

// server is the server an event is about ("" for fleet-wide events).
func (e event) server() string {
	switch {
	case e.State != nil:
		return e.State.Server
	case e.Tools != nil:
		return e.Tools.Server
	}
	return ""
}

// toolsUp reports whether e is server's tools becoming visible: the
// tools.changed that adds its tools when it turns ready.
func (e event) toolsUp(server string) bool {
	return e.Tools != nil && e.Tools.Server == server && len(e.Tools.Added) > 0 && len(e.Tools.Tools) == len(e.Tools.Added)
}

func (e event) stateTo(server string, to messages.State) bool {
	return e.State != nil && e.State.Server == server && e.State.To == to
}

// eventLog keeps every event of one stream, in order, and lets callers
// wait for one that matches from a given index on.
type eventLog struct {
	// decode turns one SSE event (its event: name and data: line) into an
	// event; false drops it.
	decode func(at time.Time, name string, data []byte) (event, bool, error)

	mu      sync.Mutex
	events  []event
	changed chan struct{} // closed and replaced on every append
	err     error         // why the stream ended
	done    bool
}

func newEventLog(decode func(at time.Time, name string, data []byte) (event, bool, error)) *eventLog {
	return &eventLog{decode: decode, changed: make(chan struct{})}
}

// follow opens the SSE stream (with the bearer token, if not "") and reads
// it on a goroutine until ctx ends.
func (l *eventLog) follow(ctx context.Context, url, token string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("events: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("events: %s", resp.Status)
	}
	go func() {
		defer resp.Body.Close()
		l.finish(l.read(resp.Body))
	}()
	return nil
}

// read parses the SSE framing: "event:" and "data:" lines, an empty line
// ends an event, comments (":") are ignored.
func (l *eventLog) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var name string
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("event:")):
			name = string(bytes.TrimSpace(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimSpace(line[5:])...)
		case len(line) == 0:
			if len(data) > 0 {
				ev, keep, err := l.decode(time.Now(), name, data)
				if err != nil {
					return err
				}
				if keep {
					l.add(ev)
				}
			}
			name, data = "", data[:0]
		}
	}
	return sc.Err()
}

func (l *eventLog) add(ev event) {
	l.mu.Lock()
	if ev.Seq == 0 {
		ev.Seq = uint64(len(l.events) + 1)
	}
	l.events = append(l.events, ev)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// visorEvent decodes one of mcpvisor's events, and remembers the pid of
// every server it reports so that none outlives the harness.
func (r *reaper) visorEvent(at time.Time, _ string, data []byte) (event, bool, error) {
	var wire struct {
		Seq   uint64          `json:"seq"`
		Time  time.Time       `json:"time"`
		Type  string          `json:"type"`
		Event json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		return event{}, false, fmt.Errorf("event %q: %w", data, err)
	}
	ev := event{At: at, Seq: wire.Seq, Type: wire.Type, Time: wire.Time}
	switch wire.Type {
	case "server.state":
		ev.State = &messages.ServerStateChanged{}
		if err := json.Unmarshal(wire.Event, ev.State); err != nil {
			return ev, false, err
		}
		if ev.State.PID > 0 {
			r.track(ev.State.PID)
		}
	case "tools.changed":
		ev.Tools = &toolsChanged{}
		if err := json.Unmarshal(wire.Event, ev.Tools); err != nil {
			return ev, false, err
		}
	}
	return ev, true, nil
}

// hubEvent decodes one of mcp-hub's events, keeping hub_state and the
// subscription events (not its logs and heartbeats).
func hubEvent(at time.Time, name string, data []byte) (event, bool, error) {
	switch name {
	case "hub_state":
		var w struct {
			State string `json:"state"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return event{}, false, fmt.Errorf("mcp-hub hub_state %q: %w", data, err)
		}
		return event{At: at, Type: "hub_state", HubState: w.State}, true, nil
	case "subscription_event":
		var w struct {
			Type    string   `json:"type"`
			Changes *changes `json:"changes"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return event{}, false, fmt.Errorf("mcp-hub subscription_event %q: %w", data, err)
		}
		return event{At: at, Type: w.Type, Changes: w.Changes}, true, nil
	}
	return event{}, false, nil
}

func (l *eventLog) finish(err error) {
	l.mu.Lock()
	l.done, l.err = true, err
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// mark is the index the next event will have.
func (l *eventLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// since returns a copy of the events from index from on.
func (l *eventLog) since(from int) []event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event(nil), l.events[min(from, len(l.events)):]...)
}

// wait returns the first event at index >= from that matches, and the
// index after it.
func (l *eventLog) wait(ctx context.Context, from int, match func(event) bool) (event, int, error) {
	for {
		l.mu.Lock()
		for i := from; i < len(l.events); i++ {
			if match(l.events[i]) {
				ev := l.events[i]
				l.mu.Unlock()
				return ev, i + 1, nil
			}
		}
		from = len(l.events)
		done, err, changed := l.done, l.err, l.changed
		l.mu.Unlock()
		if done {
			return event{}, from, fmt.Errorf("event stream ended: %v", err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return event{}, from, ctx.Err()
		}
	}
}

// waitAll waits until every name in servers has an event that matches,
// from index from on, and returns those events by server.
func (l *eventLog) waitAll(ctx context.Context, from int, servers []string, match func(event, string) bool) (map[string]event, error) {
	want := map[string]bool{}
	for _, s := range servers {
		want[s] = true
	}
	got := map[string]event{}
	for len(got) < len(want) {
		ev, next, err := l.wait(ctx, from, func(e event) bool {
			s := e.server()
			return want[s] && got[s].Seq == 0 && match(e, s)
		})
		if err != nil {
			return got, fmt.Errorf("%d of %d servers: %w", len(got), len(want), err)
		}
		got[ev.server()], from = ev, next
	}
	return got, nil
}
