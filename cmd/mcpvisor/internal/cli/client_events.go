package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

// eventsCommand follows the daemon's events until interrupted: one line
// per event, or with --json the API's event data, one JSON object a line.
// --since N first replays the kept events after N (0: all of them).
func eventsCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("events", "[--since N] [--json]", io)
	since := f.fs.String("since", "", "replay the kept events after sequence number N first (0: every kept event)")
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() > 0 {
		return f.usageError(io.Stderr, "events takes no arguments (got %q)", f.fs.Args())
	}
	path := "/api/v1/events"
	if *since != "" {
		if _, err := strconv.ParseUint(*since, 10, 64); err != nil {
			return f.usageError(io.Stderr, "--since %q: want an event sequence number", *since)
		}
		path += "?since=" + *since
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	res, err := c.send(ctx, "GET", path, nil, "text/event-stream")
	if err != nil {
		if ctx.Err() != nil {
			return ExitOK
		}
		return f.fail(io.Stderr, err)
	}
	defer res.Body.Close()
	out := &eventWriter{w: io.Stdout, stderr: io.Stderr, asJSON: f.asJSON, p: newPrinter(io.Stdout)}
	err = readEventStream(res.Body, out.write)
	switch {
	case ctx.Err() != nil:
		return ExitOK // interrupted: the normal way to stop following
	case err == nil:
		return f.fail(io.Stderr, &goneError{addr: c.addr})
	default:
		return f.fail(io.Stderr, fmt.Errorf("reading events from %s: %w", c.addr, err))
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id, event, data string
}

// readEventStream calls handle for every event of a server-sent event
// stream until it ends (nil, also when the connection was cut) or fails.
func readEventStream(r io.Reader, handle func(sseEvent)) error {
	br := bufio.NewReader(r)
	var ev sseEvent
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if len(data) > 0 {
				ev.data = strings.Join(data, "\n")
				handle(ev)
			}
			ev, data = sseEvent{}, nil
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			data = append(data, value)
		}
	}
}

// eventWriter prints stream events: known ones as the run command does
// (plus the plan and resync events it leaves out), unknown ones by type.
type eventWriter struct {
	w, stderr io.Writer
	asJSON    bool
	p         *printer
}

func (o *eventWriter) write(ev sseEvent) {
	if ev.event == httpapi.EventTruncated {
		var t httpapi.StreamTruncated
		_ = json.Unmarshal([]byte(ev.data), &t)
		fmt.Fprintf(o.stderr, "mcpvisor events: some events were skipped: %s (resuming at %d)\n", t.Reason, t.Next)
		return
	}
	if o.asJSON {
		fmt.Fprintln(o.w, ev.data)
		return
	}
	var se httpapi.StreamEvent
	if err := json.Unmarshal([]byte(ev.data), &se); err != nil {
		fmt.Fprintf(o.stderr, "mcpvisor events: event %s: %v\n", ev.id, err)
		return
	}
	env, err := httpapi.DecodeEvent(se)
	if err != nil {
		fmt.Fprintf(o.w, "%s  %-10s  %s\n", se.Time.Local().Format("15:04:05.000"), se.Type, se.Event)
		return
	}
	o.print(env)
}

func (o *eventWriter) print(env *messages.Envelope) {
	ts := env.Time.Local().Format("15:04:05.000")
	switch ev := env.Event.(type) {
	case *messages.PlanComputed:
		if ev.DryRun {
			fmt.Fprintf(o.w, "%s  plan        generation %d (dry run): %s\n", ts, ev.Generation, planSummary(ev.Steps))
			return
		}
		fmt.Fprintf(o.w, "%s  plan        generation %d: %s\n", ts, ev.Generation, planSummary(ev.Steps))
	case *messages.PlanApplied:
		fmt.Fprintf(o.w, "%s  plan        generation %d applied\n", ts, ev.Generation)
	case *messages.ResyncCompleted:
		var parts []string
		for _, oc := range ev.Outcomes {
			parts = append(parts, oc.Server+" "+string(oc.State))
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing to retry")
		}
		fmt.Fprintf(o.w, "%s  resync      done: %s\n", ts, strings.Join(parts, ", "))
	default:
		o.p.print(env)
	}
}

// planSummary lists the steps that change something ("start beta,
// restart gamma"), or says that nothing changes.
func planSummary(steps []messages.PlanStep) string {
	var parts []string
	kept := 0
	for _, st := range steps {
		if st.Action == messages.ActionKeep {
			kept++
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", st.Action, st.Server, st.Reason))
	}
	if kept > 0 {
		parts = append(parts, fmt.Sprintf("keep %d", kept))
	}
	if len(parts) == 0 {
		return "no servers"
	}
	return strings.Join(parts, ", ")
}
