package httpguard_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/internal/httpguard"
)

const rightToken = "the-right-token-of-the-throttle-tests"

func bearing(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// A1: a 2-byte token fell to a brute force in 0.3 s. Now a burst of
// wrong guesses is let through, then one a second for the whole server,
// however many come at once; the others are not even compared.
func TestThrottle_WrongGuessesAreSlowedWhateverTheParallelism(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	th := httpguard.NewThrottle(httpguard.NewToken(rightToken), clock)

	const attempts = 1000
	verdicts := make([]httpguard.Verdict, attempts)
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() { verdicts[i], _ = th.Check(bearing("guess-" + strings.Repeat("x", i%7))) })
	}
	wg.Wait()
	compared := 0
	for _, v := range verdicts {
		if v == httpguard.Unauthorized {
			compared++
		}
	}
	if compared != httpguard.DefaultGuessBurst {
		t.Fatalf("%d of %d parallel guesses were compared, want the burst of %d", compared, attempts, httpguard.DefaultGuessBurst)
	}
	v, wait := th.Check(bearing(rightToken))
	if v != httpguard.Throttled || wait != httpguard.DefaultGuessEvery {
		t.Fatalf("during the attack: %v, retry after %s; want Throttled, %s (even the right token waits: it cannot be told from a guess uncompared)", v, wait, httpguard.DefaultGuessEvery)
	}
	// One guess a second from then on.
	clock.Advance(httpguard.DefaultGuessEvery)
	if v, _ := th.Check(bearing("another-guess")); v != httpguard.Unauthorized {
		t.Fatalf("a second later: %v, want one guess compared", v)
	}
	if v, _ := th.Check(bearing("and-another")); v != httpguard.Throttled {
		t.Fatalf("right after: %v, want Throttled", v)
	}
}

// No ban: once the guessing stops the owner's token is checked again at
// once, and the right token never spends the budget.
func TestThrottle_RightTokenIsNeverSlowedAndTheBudgetRefills(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	th := httpguard.NewThrottle(httpguard.NewToken(rightToken), clock)
	for range 100 * httpguard.DefaultGuessBurst {
		if v, _ := th.Check(bearing(rightToken)); v != httpguard.Authorized {
			t.Fatalf("the right token: %v, want Authorized every time", v)
		}
	}
	for range httpguard.DefaultGuessBurst + 5 {
		th.Check(bearing("wrong"))
	}
	clock.Advance(httpguard.DefaultGuessEvery)
	if v, _ := th.Check(bearing(rightToken)); v != httpguard.Authorized {
		t.Fatalf("a second after the guessing stopped: %v, want the right token through", v)
	}
	clock.Advance(httpguard.DefaultGuessBurst * httpguard.DefaultGuessEvery)
	for i := range httpguard.DefaultGuessBurst {
		if v, _ := th.Check(bearing("wrong")); v != httpguard.Unauthorized {
			t.Fatalf("guess %d after a quiet %s: %v, want the whole burst back", i, httpguard.DefaultGuessBurst*httpguard.DefaultGuessEvery, v)
		}
	}
	// Requests without a bearer token are not guesses.
	if v, _ := th.Check(bearing("")); v != httpguard.Unauthorized {
		t.Fatalf("no token: %v, want Unauthorized, not Throttled", v)
	}
}

func TestSetRetryAfter_RoundsUpToWholeSeconds(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 0: "1"} {
		h := http.Header{}
		httpguard.SetRetryAfter(h, d)
		if got := h.Get("Retry-After"); got != want {
			t.Errorf("%s: Retry-After %q, want %q", d, got, want)
		}
	}
}

func TestCheckToken_ShortTokensAreRefused(t *testing.T) {
	t.Parallel()
	if err := httpguard.CheckToken("ab"); err == nil || !strings.Contains(err.Error(), "/dev/urandom") {
		t.Fatalf("a 2-byte token: %v, want a refusal that says how to make one", err)
	}
	if err := httpguard.CheckToken(strings.Repeat("x", httpguard.MinTokenBytes)); err != nil {
		t.Fatalf("a %d-byte token: %v", httpguard.MinTokenBytes, err)
	}
	if err := httpguard.CheckToken(""); err != nil {
		t.Fatalf("no token (serves nobody): %v", err)
	}
}

// A server whose ConnContext is OwnerConnContext compares every token of
// its own user's connections, spending no guess: the owner's typos do
// not throttle it, and another user cannot throttle it either (that part,
// as another user, is tested where the servers are: httpapi and gateway).
func TestThrottle_TheOwnersConnectionsAreNotThrottled(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	th := httpguard.NewThrottle(httpguard.NewToken(rightToken), clock)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := th.Check(r)
		w.WriteHeader(map[httpguard.Verdict]int{httpguard.Authorized: 200, httpguard.Unauthorized: 401, httpguard.Throttled: 429}[v])
	}))
	ts.Config.ConnContext = httpguard.OwnerConnContext
	ts.Start()
	defer ts.Close()
	get := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 3 * httpguard.DefaultGuessBurst {
		if code := get("typo"); code != http.StatusUnauthorized {
			t.Fatalf("the owner's wrong token %d: %d, want 401 every time", i, code)
		}
	}
	if code := get(rightToken); code != http.StatusOK {
		t.Fatalf("the owner's right token: %d, want 200", code)
	}
	// The budget is untouched: a connection of unknown owner (no
	// OwnerConnContext) still has the whole burst.
	for i := range httpguard.DefaultGuessBurst {
		if v, _ := th.Check(bearing("wrong")); v != httpguard.Unauthorized {
			t.Fatalf("guess %d of unknown owner: %v, want the whole burst left", i, v)
		}
	}
	if v, _ := th.Check(bearing("wrong")); v != httpguard.Throttled {
		t.Fatalf("past the burst, unknown owner: %v, want Throttled", v)
	}
}
