package oauth_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
)

// getEnv makes the test binary, re-executed as another local user, the
// attacker's HTTP client: it GETs the URL (following redirects) and
// prints the final answer's status code and body.
const getEnv = "OAUTH_TEST_GET"

func TestMain(m *testing.M) {
	if u := os.Getenv(getEnv); u != "" {
		os.Exit(getAndPrint(u))
	}
	os.Exit(m.Run())
}

func getAndPrint(u string) int {
	resp, err := http.Get(u)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s", resp.StatusCode, body)
	return 0
}
