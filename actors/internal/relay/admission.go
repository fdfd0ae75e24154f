package relay

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Which of a server's requests to its client (sampling, elicitation) go
// on to whoever answers them. A server's requests reach a person: an
// elicitation is a dialog, a sampling request spends the user's model.
// A hostile server once sent "mcpvisor: your session expired, enter your
// GitHub password" right after initialize, outside any call, and the
// gateway's client showed it as it came (finding G1). So:
//
//   - a request outside any call to the server is refused, unless the
//     server's config allows it (allowUnsolicitedRequests): nobody asked
//     the server to do anything, and there is no call to attribute it to;
//   - every request is rate-limited per server (a token bucket: a burst,
//     then one per interval; Limits), across its sessions, so that a
//     server restarted by its own crash gets no new burst;
//   - what goes on names its server (attribution.go).
//
// A refusal is a JSON-RPC error to the server (invalid request) whose
// message says why and what would allow it.

// Limits bound a server's requests to its client: Burst at once, then one
// per Every. A Burst below zero means no bound.
type Limits struct {
	Burst int
	Every time.Duration
}

// DefaultLimits: five at once (a tool that asks a few questions in a
// row), then one a second.
var DefaultLimits = Limits{Burst: 5, Every: time.Second}

// ErrUnsolicited: a server asked its client for something outside any
// call to it, and its config does not allow that.
var ErrUnsolicited = errors.New("request outside any call")

// ErrRateLimited: a server asked its client for more than its limits allow.
var ErrRateLimited = errors.New("too many requests")

// Admission holds the request buckets of every server of a Supervisor,
// by name; safe for concurrent use. The zero value, or nil, admits all.
type Admission struct {
	limits Limits
	clock  quartz.Clock

	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket is one server's tokens as of at.
type bucket struct {
	tokens float64
	at     time.Time
}

// NewAdmission bounds each server's requests by limits (zero fields:
// DefaultLimits'), on clock.
func NewAdmission(limits Limits, clock quartz.Clock) *Admission {
	if limits.Burst == 0 {
		limits.Burst = DefaultLimits.Burst
	}
	if limits.Every <= 0 {
		limits.Every = DefaultLimits.Every
	}
	return &Admission{limits: limits, clock: clock, buckets: map[string]*bucket{}}
}

// take spends one of server's tokens for a request of what; it fails with
// ErrRateLimited when none is left.
func (a *Admission) take(server, what string) error { return a.takeN(server, what, 1) }

// takeN spends n of server's tokens for n requests of what that come
// together (the input requests of one result), or none: when fewer than n
// are left the whole batch is refused and the tokens stay, so a batch that
// is refused costs the server's later requests nothing.
func (a *Admission) takeN(server, what string, n int) error {
	if n <= 0 || a == nil || a.buckets == nil || a.limits.Burst < 0 {
		return nil
	}
	now := a.clock.Now("relay", "admission")
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.buckets[server]
	if b == nil {
		b = &bucket{tokens: float64(a.limits.Burst), at: now}
		a.buckets[server] = b
	}
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(float64(a.limits.Burst), b.tokens+float64(elapsed)/float64(a.limits.Every))
		b.at = now
	}
	if b.tokens < float64(n) {
		return refusal(ErrRateLimited, fmt.Sprintf("mcpvisor refused %s from server %q: more than %d requests at once, then one per %s; try again later",
			what, server, a.limits.Burst, a.limits.Every))
	}
	b.tokens -= float64(n)
	return nil
}

// unsolicited is the refusal of a request of what that server sent
// outside any call to it.
func unsolicited(server, what string) error {
	return refusal(ErrUnsolicited, fmt.Sprintf("mcpvisor refused %s from server %q: it came outside any call to the server; "+
		`set "allowUnsolicitedRequests": true on the server's config entry to allow it`, what, server))
}

// refused is a refusal: the JSON-RPC error the server gets (the go-sdk
// keeps its code), which is also its sentinel for errors.Is.
type refused struct {
	sentinel error
	wire     *jsonrpc.Error
}

func refusal(sentinel error, message string) error {
	return &refused{sentinel: sentinel, wire: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: message}}
}

func (e *refused) Error() string   { return e.wire.Message }
func (e *refused) Unwrap() []error { return []error{e.sentinel, e.wire} }
