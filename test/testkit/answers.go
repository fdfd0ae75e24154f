package testkit

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerCounter wraps a client transport and counts, on the wire, every
// request of one method the client writes and every response it reads,
// by request id: what the go-sdk hides (a response with no caller left,
// a second response to one id).
type AnswerCounter struct {
	mcp.Transport
	Method string

	mu        sync.Mutex
	calls     map[any]bool
	responses map[any]int
}

// CountAnswers wraps t, counting the requests of method.
func CountAnswers(t mcp.Transport, method string) *AnswerCounter {
	return &AnswerCounter{Transport: t, Method: method, calls: map[any]bool{}, responses: map[any]int{}}
}

func (t *AnswerCounter) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countedConn{Connection: conn, t: t}, nil
}

// Check returns one error per request that did not get exactly one
// response, and one if the count of requests is not want.
func (t *AnswerCounter) Check(want int) []error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var errs []error
	if len(t.calls) != want {
		errs = append(errs, fmt.Errorf("%d %s requests written, want %d", len(t.calls), t.Method, want))
	}
	for id := range t.calls {
		if n := t.responses[id]; n != 1 {
			errs = append(errs, fmt.Errorf("%s request %v got %d responses, want 1", t.Method, id, n))
		}
	}
	return errs
}

type countedConn struct {
	mcp.Connection
	t *AnswerCounter
}

func (c *countedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == c.t.Method && req.IsCall() {
		c.t.mu.Lock()
		c.t.calls[req.ID.Raw()] = true
		c.t.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *countedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.t.mu.Lock()
		c.t.responses[resp.ID.Raw()]++
		c.t.mu.Unlock()
	}
	return msg, err
}

// CallersAnswered has callers goroutines make calls calls each of tool
// (an echo: {"message": m} answers m) through sessions (caller i uses
// sessions[i%len(sessions)]) and returns one error per call that was not
// answered with its own message. It returns when every call has returned.
func CallersAnswered(ctx context.Context, sessions []*mcp.ClientSession, tool string, callers, calls int) []error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for i := range callers {
		cs := sessions[i%len(sessions)]
		wg.Go(func() {
			for n := range calls {
				msg := fmt.Sprintf("caller %d call %d", i, n)
				p := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": msg}}
				if n%3 == 0 {
					p.SetProgressToken(fmt.Sprintf("c%d-%d", i, n)) // the relay's bookkeeping too
				}
				res, err := cs.CallTool(ctx, p)
				switch {
				case err != nil:
					fail(fmt.Errorf("%s: %w", msg, err))
				case res.IsError || len(res.Content) != 1:
					fail(fmt.Errorf("%s: result %+v", msg, res))
				default:
					if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != msg {
						fail(fmt.Errorf("%s: answered %+v", msg, res.Content[0]))
					}
				}
			}
		})
	}
	wg.Wait()
	return errs
}
