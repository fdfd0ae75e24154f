package relay

import (
	"context"
	"encoding/json"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// onProgress hands an upstream notifications/progress to its call: the
// go-sdk calls it for the connections the relay cannot read itself (the
// streamable HTTP client's, see order.go).
func (r *Relay) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	defer r.relayed()
	p := req.Params
	if token, ok := p.ProgressToken.(string); ok {
		r.deliverProgress(token, p.Progress, p.Total, p.Message)
	}
}

// wireProgress is the part of a notifications/progress's params the
// relay reads. A token that is not a string is not one of ours.
type wireProgress struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total"`
	Message       string          `json:"message"`
}

// progressNote is one progress notification waiting for delivery.
type progressNote struct {
	progress, total float64
	message         string
}

// relayProgress takes a notifications/progress as read off the
// connection: one it cannot read, or whose token is no call's in flight,
// is dropped, as the go-sdk would; the others are queued on their call,
// counted (the call waits for them, see Drain) and delivered in order on
// a goroutine of the call's (deliverQueued). The reader never waits for a
// caller: one slow to take its progress holds up no other message.
func (r *Relay) relayProgress(params json.RawMessage) {
	var p wireProgress
	if json.Unmarshal(params, &p) != nil || len(p.ProgressToken) < 2 || p.ProgressToken[0] != '"' {
		return
	}
	var token string
	if json.Unmarshal(p.ProgressToken, &token) != nil {
		return
	}
	r.mu.Lock()
	c := r.tokens[token]
	if c == nil {
		r.mu.Unlock()
		return // the call has ended, or the token is not one of ours
	}
	c.queue = append(c.queue, progressNote{progress: p.Progress, total: p.Total, message: p.Message})
	c.queued++
	start := !c.delivering
	c.delivering = true
	r.mu.Unlock()
	if start {
		r.deps.Work.Add(1)
		go c.deliverQueued()
	}
}

// deliverQueued delivers the call's queued progress in order, then ends
// (relayProgress starts it again for more); once the call has ended,
// what is left is dropped.
func (c *Call) deliverQueued() {
	r := c.relay
	defer r.deps.Work.Done()
	for {
		r.mu.Lock()
		if len(c.queue) == 0 {
			c.delivering, c.queue = false, nil
			r.mu.Unlock()
			return
		}
		n := c.queue[0]
		c.queue = c.queue[1:]
		live := r.calls[c.n] == c
		r.mu.Unlock()
		if live {
			r.deliverTo(c, n.progress, n.total, n.message)
		}
		r.mu.Lock()
		c.delivered++
		r.signalLocked()
		r.mu.Unlock()
	}
}

// deliverProgress gives one progress notification to the call whose
// token it carries, if that call is still in flight.
func (r *Relay) deliverProgress(token string, progress, total float64, message string) {
	r.mu.Lock()
	c := r.tokens[token]
	r.mu.Unlock()
	if c == nil {
		return // the call has ended, or the token is not one of ours
	}
	r.deliverTo(c, progress, total, message)
}

// deliverTo hands one progress notification to call c.
func (r *Relay) deliverTo(c *Call, progress, total float64, message string) {
	if c.reset != nil {
		c.reset()
	}
	if message != "" {
		message = r.redactor.Redact(message)
	}
	c.progress(messages.Progress{Server: r.server, Progress: progress, Total: total, Message: message})
}

// relayed counts one relayed notification as handled.
func (r *Relay) relayed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handled++
	r.signalLocked()
}

// signalLocked wakes every drain (r.mu held).
func (r *Relay) signalLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Drain waits, after call c returned, until every relayed notification
// read before its response (and perhaps a few after) was handled: its
// own progress queued by relayProgress, and the counted ones (log
// messages; over streamable HTTP, progress too) of the whole session, so
// that the call is still in flight while they are (see order.go);
// or until ctx ends.
func (r *Relay) Drain(ctx context.Context, c *Call) {
	counted := r.counted.Load()
	target := r.read.Load()
	r.mu.Lock()
	queued := c.queued
	r.mu.Unlock()
	var bound *quartz.Timer
	for {
		r.mu.Lock()
		caught, changed := c.delivered >= queued && (!counted || r.handled >= target), r.changed
		r.mu.Unlock()
		if caught {
			return
		}
		if bound == nil {
			// Only a call that has something left to wait for arms it.
			bound = r.deps.Clock.NewTimer(maxDrain, "relay", "drain")
			defer bound.Stop()
		}
		select {
		case <-changed:
		case <-bound.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// maxDrain bounds how long a returned call waits for the notifications
// read before its response (see order.go).
const maxDrain = time.Second
