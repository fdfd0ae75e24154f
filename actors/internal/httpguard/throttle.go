package httpguard

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/quartz"
)

// DefaultGuessBurst and DefaultGuessEvery bound how fast wrong bearer
// tokens may be tried: a burst of DefaultGuessBurst guesses, then one
// every DefaultGuessEvery, for the whole server (not per client: a local
// attacker has as many source ports as it wants).
const (
	DefaultGuessBurst = 10
	DefaultGuessEvery = time.Second
)

// Throttle checks bearer tokens like Token, but spends one of a budget of
// guesses on each wrong one; once the budget is spent, requests that
// bear a token are answered "retry later" without being compared, until
// the budget refills (one guess per Every, up to Burst). A wrong guess
// therefore costs an attacker time whatever its parallelism.
//
// Requests of the server's own user are not throttled: they neither
// spend the budget nor wait for it, when the server's ConnContext is
// OwnerConnContext (see there). Without it every request is.
//
// What it does not do: it never bans. Once the guessing stops, the budget
// is back within Burst×Every. While it goes on, a request with the right
// token that arrives when the budget is spent is turned away too (the
// right token cannot be told from a guess without comparing it, and a
// comparison is what the budget limits); the client retries after
// Retry-After, at most Every (unless OwnerConnContext tells the owner's
// requests apart). A request with the right token never spends the
// budget, so the owner's own traffic never slows anyone.
//
// The budget is a GCRA ("virtual scheduling"): next is when the budget
// would be full again; a guess pushes it by Every; a guess is let
// through while next is at most Burst×Every ahead. Time is the quartz
// clock's Now, so tests drive refills with a mock clock and no timers.
type Throttle struct {
	token Token
	clock quartz.Clock
	burst time.Duration // Burst×Every
	every time.Duration

	mu   sync.Mutex
	next time.Time
}

// NewThrottle returns the check for token with the default budget, timed
// by clock (default: the real clock).
func NewThrottle(token Token, clock quartz.Clock) *Throttle {
	if clock == nil {
		clock = quartz.NewReal()
	}
	return &Throttle{token: token, clock: clock, every: DefaultGuessEvery, burst: DefaultGuessBurst * DefaultGuessEvery}
}

// Verdict is what Check decided about a request.
type Verdict int

const (
	// Authorized: the request bears the token.
	Authorized Verdict = iota
	// Unauthorized: no token, or the wrong one (answer 401).
	Unauthorized
	// Throttled: too many wrong tokens lately; the request's was not
	// compared (answer 429 with Retry-After).
	Throttled
)

// Check decides about r. With Throttled, retryAfter is when a guess will
// be let through again.
func (t *Throttle) Check(r *http.Request) (v Verdict, retryAfter time.Duration) {
	if !bearsToken(r) || !t.token.Set() {
		return Unauthorized, 0 // nothing to compare: no guess spent
	}
	if fromOwner(r) {
		return t.compare(r), 0 // the server's own user: see OwnerConnContext
	}
	if wait, ok := t.reserve(); !ok {
		return Throttled, wait
	}
	v = t.compare(r)
	if v == Authorized {
		t.refund()
	}
	return v, 0
}

// compare checks r's token, spending nothing.
func (t *Throttle) compare(r *http.Request) Verdict {
	if t.token.Authorized(r) {
		return Authorized
	}
	return Unauthorized
}

// bearsToken reports whether r presents a bearer token to compare.
func bearsToken(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != ""
}

// reserve spends one guess, or says how long until one is available.
func (t *Throttle) reserve() (wait time.Duration, ok bool) {
	now := t.clock.Now("httpguard", "guess")
	t.mu.Lock()
	defer t.mu.Unlock()
	next := t.next
	if next.Before(now) {
		next = now
	}
	next = next.Add(t.every)
	if ahead := next.Sub(now); ahead > t.burst {
		return ahead - t.burst, false
	}
	t.next = next
	return 0, true
}

// refund gives back a guess that turned out to be the right token.
func (t *Throttle) refund() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next = t.next.Add(-t.every)
}

// ThrottledMessage is the body of a Throttled answer; SetRetryAfter sets
// its header.
const ThrottledMessage = "too many wrong bearer tokens lately: this request's token was not checked; retry after the Retry-After header's seconds"

// SetRetryAfter sets Retry-After to wait, rounded up to whole seconds.
func SetRetryAfter(h http.Header, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	h.Set("Retry-After", strconv.Itoa(max(secs, 1)))
}
