package session

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/internal/ndjson"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// A stdio server (this test binary) that writes a message over the 16 MiB
// bound once it is ready fails with a reason that says the message was
// cut there, and names the bound. It used to fail with "server process
// exited: signal: terminated": the go-sdk closes the connection on the
// read error without passing it on, and closing it terminates the
// process.
func TestCut_AMessageOverTheBoundIsTheFailure(t *testing.T) {
	t.Parallel()
	ctx := testctx.Context(t)
	r := newRig(t, nil)
	r.spawn(messages.ServerSpec{Name: "long", Transport: messages.TransportStdio, Command: os.Args[0],
		Env: map[string]string{longLineEnv: strconv.Itoa(ndjson.MaxMessage + 1)}}, 1)
	report[*Ready](ctx, r)
	failed := report[*messages.ServerFailed](ctx, r)
	for _, want := range []string{"longer than 16777216 bytes (16 MiB)", "the connection was cut there"} {
		if !strings.Contains(failed.Error, want) {
			t.Errorf("failure %q does not say %q", failed.Error, want)
		}
	}
	if strings.Contains(failed.Error, "signal") {
		t.Errorf("failure %q blames a signal, not the message", failed.Error)
	}
}
