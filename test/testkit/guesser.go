package testkit

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// guessEnv makes a test binary re-executed by GuessUntilThrottled a
// guesser of bearer tokens at the URL it holds.
const guessEnv = "MCPVISOR_TEST_GUESS_URL"

// maxGuesses bounds a guesser: a server that has not throttled it by then
// does not throttle at all.
const maxGuesses = 200

// RunGuesser is for TestMain, first thing: in a test binary re-executed
// by GuessUntilThrottled it sends the guesses and exits; otherwise it
// returns at once.
func RunGuesser() {
	url := os.Getenv(guessEnv)
	if url == "" {
		return
	}
	n, err := guessUntilThrottled(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("compared %d\n", n)
	os.Exit(0)
}

// guessUntilThrottled sends GET url with wrong bearer tokens until one is
// answered 429, and returns how many were answered 401 before it.
func guessUntilThrottled(url string) (compared int, err error) {
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	for i := range maxGuesses {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer wrong-guess-"+strconv.Itoa(i))
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		res.Body.Close()
		switch res.StatusCode {
		case http.StatusTooManyRequests:
			return compared, nil
		case http.StatusUnauthorized:
			compared++
		default:
			return 0, fmt.Errorf("guess %d answered %s, want 401 or 429", i, res.Status)
		}
	}
	return 0, fmt.Errorf("%d wrong guesses, none answered 429: the server does not throttle them", maxGuesses)
}

// GuessUntilThrottled has u run bin (SharedTestBinary of a package whose
// TestMain calls RunGuesser) to send GET url with wrong bearer tokens, as
// an attacker on the machine would, until the server answers 429. It
// returns how many guesses were compared (answered 401) before that; it
// fails t if the server never throttled.
func (u OtherUser) GuessUntilThrottled(ctx context.Context, t testing.TB, bin, url string) (compared int) {
	t.Helper()
	cmd := u.Command(ctx, bin)
	cmd.Env = []string{guessEnv + "=" + url}
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("guessing tokens at %s as %s: %v: %s", url, u.Name, err, stderr.String())
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(string(out)), "compared "))
	if err != nil {
		t.Fatalf("the guesser as %s said %q", u.Name, out)
	}
	return n
}
