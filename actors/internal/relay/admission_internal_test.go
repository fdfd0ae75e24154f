package relay

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/coder/quartz"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Each server gets the default burst of five, then one request a second;
// another server's bucket is its own, and a refusal is a JSON-RPC
// invalid request that errors.Is finds as ErrRateLimited.
func TestAdmission_BurstThenOnePerSecondPerServer(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t)
	a := NewAdmission(Limits{}, clock)
	for i := range DefaultLimits.Burst {
		if err := a.take("flood", "elicitation/create"); err != nil {
			t.Fatalf("request %d of the burst refused: %v", i+1, err)
		}
	}
	err := a.take("flood", "elicitation/create")
	var wire *jsonrpc.Error
	if !errors.Is(err, ErrRateLimited) || !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("past the burst: %v, want ErrRateLimited as -32600", err)
	}
	if err := a.take("quiet", "elicitation/create"); err != nil {
		t.Errorf("another server's first request refused: %v", err)
	}
	clock.Advance(time.Second / 2).MustWait(t.Context())
	if err := a.take("flood", "elicitation/create"); err == nil {
		t.Error("admitted after half a second")
	}
	clock.Advance(time.Second / 2).MustWait(t.Context())
	if err := a.take("flood", "elicitation/create"); err != nil {
		t.Errorf("refused after a second: %v", err)
	}
	if err := a.take("flood", "elicitation/create"); err == nil {
		t.Error("two admitted after one second")
	}
}

// A negative burst turns the bound off; a nil Admission admits all.
func TestAdmission_Unbounded(t *testing.T) {
	t.Parallel()
	a := NewAdmission(Limits{Burst: -1}, quartz.NewMock(t))
	var none *Admission
	for range 100 {
		if err := errors.Join(a.take("s", "sampling/createMessage"), none.take("s", "sampling/createMessage")); err != nil {
			t.Fatal(err)
		}
	}
}

// The input requests of one result are admitted together: a batch that
// does not fit is refused whole and spends no tokens, so the server's
// next, smaller batch still fits. (Admitted one at a time, the refused
// batch's first requests took tokens that were then lost.)
func TestRelay_InputBatchIsAdmittedWhole(t *testing.T) {
	t.Parallel()
	clock := quartz.NewMock(t)
	r := New(Deps{Admission: NewAdmission(Limits{}, clock), Clock: clock}, messages.ServerSpec{Name: "s"}, 1, nil, nil)
	batch := func(n int) *mcp.CallToolResult {
		//lint:ignore SA1019 a roots request is what the batch must not count
		asks := mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}} // answered, shown to nobody: not counted
		for i := range n {
			asks[fmt.Sprint("ask", i)] = &mcp.ElicitParams{Message: "colour?"}
		}
		return &mcp.CallToolResult{InputRequests: asks}
	}
	if _, err := r.passInput(batch(3), nil); err != nil { // 2 of the burst of 5 left
		t.Fatalf("first batch of 3: %v", err)
	}
	if _, err := r.passInput(batch(3), nil); !errors.Is(err, ErrRateLimited) {
		t.Fatalf("second batch of 3: %v, want ErrRateLimited", err)
	}
	if _, err := r.passInput(batch(2), nil); err != nil {
		t.Errorf("a batch of 2 after a refused one: %v, want it admitted (the refused batch spent nothing)", err)
	}
}
