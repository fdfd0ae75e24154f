package session

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/internal/ndjson"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// flooded is an in-memory flood server on the rig's clock, and the end of
// its serve loop.
type flooded struct {
	srv  *floodServer
	done chan error
}

// floodDial dials the flood server of f over a pipe, with mcpvisor's own
// stdio connection on the session's end.
func (r *rig) floodDial(f *flooded) func(messages.ServerSpec) (mcp.Transport, error) {
	return func(messages.ServerSpec) (mcp.Transport, error) {
		server, client := net.Pipe()
		f.srv.r, f.srv.w = bufio.NewReader(server), server
		go func() {
			err := f.srv.serve()
			_ = server.Close()
			f.done <- err
		}()
		return &ndjson.Transport{Reader: client, Writer: client}, nil
	}
}

// toolName is the one tool a flood server's listing holds.
func toolName(t testing.TB, c Catalog) string {
	t.Helper()
	if len(c.Tools) != 1 {
		t.Fatalf("listing holds %d tools, want the flood server's one", len(c.Tools))
	}
	return c.Tools[0].Name
}

// Finding R1: a server sent 45,634 tools/list_changed in ten seconds and
// each started a tools/list, none cancelled: 52,089 listings, a core for
// 30 s and 400-700 MB. Now a flood costs a few listings: the first
// notification is listed at once, those that come while it runs mark the
// kind dirty, and one more listing follows once it is over and the
// re-list interval (quartz, trapped here) since it began has passed. The
// last listing shows the last notification's state.
func TestRelist_FloodCostsAFewListingsAndEndsOnTheLastState(t *testing.T) {
	t.Parallel()
	const notifications, interval = 5000, 3 * time.Second
	ctx := testctx.Context(t)
	f := &flooded{done: make(chan error, 1)}
	r := newRig(t, nil)
	r.deps.Dial, r.deps.RelistInterval = r.floodDial(f), interval
	f.srv = &floodServer{clock: r.clock}
	trap := r.clock.Trap().AfterFunc("session", "relist-interval")
	closeTrap := sync.OnceFunc(trap.Close)
	defer closeTrap()

	h := r.spawn(messages.ServerSpec{Name: "flood", Transport: messages.TransportStdio}, 1)
	if got := toolName(t, report[*Ready](ctx, r).Catalog); got != "v0" {
		t.Fatalf("connect listed %s, want v0", got)
	}
	flooded := make(chan struct{})
	go func() {
		defer close(flooded)
		f.srv.flood(notifications)
	}()
	// The first notification is listed at once; its listing arms the
	// interval.
	call := trap.MustWait(ctx)
	if call.Duration != interval {
		t.Fatalf("re-list interval armed for %s, want RelistInterval (%s)", call.Duration, interval)
	}
	call.MustRelease(ctx)
	closeTrap() // the later ones are counted on the server's side
	<-flooded

	// Each listing that does not show the last notification is followed
	// by another, once the interval has passed.
	last := toolName(t, report[*Relisted](ctx, r).Catalog)
	for last != "v5000" {
		r.clock.Advance(interval).MustWait(ctx)
		last = toolName(t, report[*Relisted](ctx, r).Catalog)
	}
	// Whatever is still marked goes too; then nothing more is listed.
	r.clock.Advance(interval).MustWait(ctx)
	h.Stop()
	report[*Stopped](ctx, r)
	if err := <-f.done; err != nil {
		t.Fatal(err)
	}

	lists := f.srv.lists()
	t.Logf("%d notifications, %d tools/list (the connect's included)", notifications, len(lists))
	if len(lists) > 4 {
		t.Fatalf("%d notifications made %d tools/list, want at most 4 (the connect's, then a few)", notifications, len(lists))
	}
	for i := 2; i < len(lists); i++ { // lists[0] is the connect's
		if gap := lists[i].Sub(lists[i-1]); gap < interval {
			t.Errorf("re-lists %d and %d only %s apart, want at least %s", i-1, i, gap, interval)
		}
	}
}

// A flood through a real stdio process (this test binary, run as a flood
// server): it sends its notifications right after answering the connect's
// tools/list, and answers later ones only once they are written. It
// costs a few tools/list, counted by the server, and the catalog ends on
// the last state. (BenchmarkRelist_StdioFlood sends finding R1's 45,634.)
func TestRelist_StdioFloodCostsAFewListings(t *testing.T) {
	t.Parallel()
	const notifications = 10000
	lists := stdioFlood(t, notifications)
	t.Logf("%d notifications, %d tools/list (the connect's included)", notifications, lists)
	if lists > 4 {
		t.Fatalf("%d notifications made %d tools/list, want at most 4 (the connect's, then a few)", notifications, lists)
	}
}

// stdioFlood runs a stdio flood server that sends notifications, follows
// its listings to the last state and stops it; it returns how many
// tools/list the server answered.
func stdioFlood(tb testing.TB, notifications int) int {
	const interval = time.Second
	ctx := testctx.Context(tb)
	count := filepath.Join(tb.TempDir(), "lists")
	r := newRig(tb, nil)
	r.deps.RelistInterval = interval
	h := r.spawn(messages.ServerSpec{Name: "flood", Transport: messages.TransportStdio, Command: os.Args[0],
		Env: map[string]string{floodEnv: strconv.Itoa(notifications), floodCountEnv: count}}, 1)
	if got := toolName(tb, report[*Ready](ctx, r).Catalog); got != "v0" {
		tb.Fatalf("connect listed %s, want v0", got)
	}
	want := "v" + strconv.Itoa(notifications)
	for last := toolName(tb, report[*Relisted](ctx, r).Catalog); last != want; last = toolName(tb, report[*Relisted](ctx, r).Catalog) {
		r.clock.Advance(interval).MustWait(ctx)
	}
	r.clock.Advance(interval).MustWait(ctx) // whatever is still marked goes too
	h.Stop()
	report[*Stopped](ctx, r) // the process is gone: its count is final
	data, err := os.ReadFile(count)
	if err != nil {
		tb.Fatal(err)
	}
	lists, err := strconv.Atoi(string(data))
	if err != nil {
		tb.Fatal(err)
	}
	return lists
}
