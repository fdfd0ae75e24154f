package httpguard

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/coder/quartz"
)

// DefaultBodyTimeout is how long a request body may take to arrive.
const DefaultBodyTimeout = 30 * time.Second

// ErrBodyTimeout: the body did not arrive within its deadline.
var ErrBodyTimeout = errors.New("request body not received in time")

// ReadBody reads r's whole body, at most limit bytes, within timeout on
// clock (tags "http", "body-read"): a client that trickles its body, or
// stops sending it, cannot hold the handler. Errors: ErrBodyTimeout, or
// an *http.MaxBytesError past limit, or the connection's error.
//
// The timeout is a quartz timer that, when it fires, moves the
// connection's read deadline into the past (the pending read then
// returns); it is stopped before ReadBody returns, and a body that has
// been read in full is never cut afterwards. A net.Conn deadline is not
// used directly because it runs on the wall clock, which tests cannot
// drive, and because a deadline left in place would also end the
// server's background read that notices a client going away.
func ReadBody(w http.ResponseWriter, r *http.Request, clock quartz.Clock, timeout time.Duration, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	rc := http.NewResponseController(w)
	c := &cutoff{rc: rc}
	timer := clock.AfterFunc(timeout, c.expire, "http", "body-read")
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	timer.Stop()
	if c.finish() && err != nil {
		return nil, fmt.Errorf("%w (%s)", ErrBodyTimeout, timeout)
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return nil, fmt.Errorf("%w: %w", ErrBodyTimeout, err)
	}
	return b, err
}

// cutoff is the body's deadline: expire and finish share one lock, so
// once the body is done it is never cut.
type cutoff struct {
	rc      *http.ResponseController
	mu      sync.Mutex
	done    bool
	expired bool
}

func (c *cutoff) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.expired = true
	// Any time in the past ends the pending read at once. Where the
	// writer cannot set deadlines (a test recorder), nothing is cut.
	_ = c.rc.SetReadDeadline(time.Unix(1, 0))
}

// finish marks the body done and reports whether it had been cut.
func (c *cutoff) finish() (expired bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	return c.expired
}
