package httpapi_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// A client that sends part of a body and then nothing (or trickles it)
// does not hold the handler: once BodyTimeout passes on the clock the
// read is cut and the request answered 408.
func TestBody_TrickledBodyIsCut(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	trap := clock.Trap().AfterFunc("http", "body-read")
	defer trap.Close()
	ts, _ := api(t, httpapi.Options{Clock: clock, BodyTimeout: 7 * time.Second})

	for _, path := range []string{"/api/v1/tools/call", "/api/v1/resync"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na", path, testToken)

		call := trap.MustWait(ctx)
		if call.Duration != 7*time.Second {
			t.Fatalf("body deadline %s, want BodyTimeout", call.Duration)
		}
		call.MustRelease(ctx)
		clock.Advance(7 * time.Second).MustWait(ctx)

		if d, ok := ctx.Deadline(); ok {
			_ = conn.SetReadDeadline(d)
		}
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: no answer after the body deadline: %v", path, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestTimeout {
			t.Fatalf("%s: trickled body answered %d, want 408", path, res.StatusCode)
		}
	}
	if _, ok := clock.Peek(); ok {
		t.Fatal("a body timer is still pending")
	}
}

// A body that arrives in full stops its timer: nothing is left pending
// to cut the connection later.
func TestBody_CompleteBodyStopsItsTimer(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t).WithLogger(quartz.NoOpLogger)
	ts, _ := api(t, httpapi.Options{Clock: clock})
	if res := request(t, ts, http.MethodPost, "/api/v1/tools/call", `{"name": "alpha__echo"}`); res.code == http.StatusRequestTimeout {
		t.Fatalf("complete body answered 408")
	}
	if d, ok := clock.Peek(); ok {
		t.Fatalf("a timer is pending in %s after the request", d)
	}
}
