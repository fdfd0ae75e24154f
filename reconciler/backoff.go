package reconciler

import "time"

// Backoff is the retry schedule after a failure: Initial doubling up to Max,
// with up to Jitter (a fraction) of the delay added at random.
type Backoff struct {
	Initial time.Duration
	Max     time.Duration
	Jitter  float64
}

// DefaultBackoff is 1 s doubling to 5 min with 20% jitter.
var DefaultBackoff = Backoff{Initial: time.Second, Max: 5 * time.Minute, Jitter: 0.2}

// Delay is the wait before retry number attempt (1-based). random is a
// value in [0, 1) supplied by the caller, so Delay stays deterministic.
func (b Backoff) Delay(attempt int, random float64) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := b.Initial
	for i := 1; i < attempt && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	return d + time.Duration(float64(d)*b.Jitter*random)
}

// CrashLoop is the budget of failures within a window after which a server
// stops retrying by itself and waits for a resync or a config change.
type CrashLoop struct {
	Failures int
	Window   time.Duration
}

// DefaultCrashLoop is 5 failures in 10 minutes.
var DefaultCrashLoop = CrashLoop{Failures: 5, Window: 10 * time.Minute}

// Exceeded reports whether the failure times (oldest first) spend the
// budget as of now. It also returns the failures still inside the window,
// so the caller can keep only those.
func (c CrashLoop) Exceeded(failures []time.Time, now time.Time) (bool, []time.Time) {
	cut := now.Add(-c.Window)
	i := 0
	for i < len(failures) && !failures[i].After(cut) {
		i++
	}
	recent := failures[i:]
	return c.Failures > 0 && len(recent) >= c.Failures, recent
}
