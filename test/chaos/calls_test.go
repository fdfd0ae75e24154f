package chaos_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// callBound is how long a caller waits for any one call. Every call is
// bounded well below it by the server's call timeout (callTimeout), so a
// call that needs it was never answered.
const callBound = 20 * time.Second

// callers call echo on random servers, concurrently with every fault,
// and classify each call's one answer.
type callers struct {
	sup     *actors.Supervisor
	secrets *secretScan
	names   atomic.Pointer[callNames] // the names to call, set by the schedule

	mu         sync.Mutex
	outcomes   map[string]int
	violations []string
	wg         sync.WaitGroup
}

func newCallers(sup *actors.Supervisor, secrets *secretScan) *callers {
	c := &callers{sup: sup, secrets: secrets, outcomes: map[string]int{}}
	c.names.Store(&callNames{others: []string{"never-configured"}})
	return c
}

// start runs n callers until ctx ends; wait waits for them.
func (c *callers) start(ctx context.Context, n int, seed uint64) {
	for i := range n {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(1000+i)))
			for k := 0; ctx.Err() == nil; k++ {
				names := *c.names.Load()
				c.call(ctx, names.pick(rng), fmt.Sprintf("call-%d-%d", i, k))
				_ = waitFor(ctx, time.Duration(2+rng.IntN(18))*time.Millisecond)
			}
		}()
	}
}

func (c *callers) wait() { c.wg.Wait() }

// callNames are the servers to call: configured ones nine times in ten,
// else one that is not (removed, never configured).
type callNames struct {
	configured, others []string
}

func (n *callNames) pick(rng *rand.Rand) string {
	if len(n.configured) > 0 && (rng.IntN(10) > 0 || len(n.others) == 0) {
		return n.configured[rng.IntN(len(n.configured))]
	}
	return n.others[rng.IntN(len(n.others))]
}

// call makes one call and records its answer: a result (which must be
// the message sent) or an error that wraps one of the documented
// sentinels.
func (c *callers) call(run context.Context, server, msg string) {
	ctx, cancel := context.WithTimeout(run, callBound)
	defer cancel()
	res, err := c.sup.CallTool(ctx, actors.QualifiedName(server, "echo"), map[string]any{"message": msg})
	outcome, violation := classifyCall(run, ctx, res != nil, err)
	if err == nil && res != nil {
		switch {
		case res.IsError:
			violation = fmt.Sprintf("%s__echo(%q) answered isError: %s", server, msg, testkit.Text(res))
		case testkit.Text(res) != msg:
			violation = fmt.Sprintf("%s__echo(%q) answered %q", server, msg, testkit.Text(res))
		}
	}
	if err != nil {
		c.secrets.check("call errors", "the error of "+server+"__echo", err.Error())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outcomes[outcome]++
	if violation != "" && len(c.violations) < 20 {
		c.violations = append(c.violations, violation)
	}
}

// classifyCall names a call's outcome; a violation is an answer that is
// not a result or a classified error.
func classifyCall(run, ctx context.Context, gotResult bool, err error) (outcome, violation string) {
	switch {
	case err == nil && gotResult:
		return "result", ""
	case err == nil:
		return "no answer", "CallTool returned neither a result nor an error"
	case gotResult:
		return "result and error", fmt.Sprintf("CallTool returned a result and an error: %v", err)
	case errors.Is(err, actors.ErrNotReady):
		return "not ready", ""
	case errors.Is(err, actors.ErrUnknownServer):
		return "unknown server", ""
	case errors.Is(err, actors.ErrUnknownTool):
		return "unknown tool", ""
	case errors.Is(err, actors.ErrUpstream):
		return "upstream error", ""
	case errors.Is(err, actors.ErrCallTimeout):
		return "call timeout", ""
	case errors.Is(err, actors.ErrClosed):
		return "supervisor closed", ""
	case errors.Is(err, actors.ErrCanceled) && run.Err() != nil:
		return "canceled (end of run)", ""
	case errors.Is(err, actors.ErrCanceled) && ctx.Err() != nil:
		return "unanswered", fmt.Sprintf("no answer within %s: %v", callBound, err)
	default:
		return "unclassified error", fmt.Sprintf("unclassified error: %v", err)
	}
}
