//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input requests (protocol 2026-07-28, SEP-2322): a server that needs its
// client to sample, elicit or list roots during a call answers the call
// with a result that carries inputRequests (and an opaque requestState);
// the client answers them and makes the call again with inputResponses
// (and the state). The go-sdk client's own middleware would always answer
// them from the session's handlers; mcpvisor's (inputRequests, in its
// place) answers them only for a caller that cannot itself: a caller that
// can (WithInputPassThrough: a gateway client on 2026-07-28) gets the
// result as the server sent it, and its own retry brings the answers.

// Bounds on the rounds of one call, as the go-sdk's own: a server that
// keeps asking, or keeps shedding load (input required, nothing asked),
// fails the call.
const (
	maxInputRounds = 10
	maxInputShed   = 3
)

// ErrInputRequests: a server's input requests could not be answered
// within a call (too many rounds, or one mcpvisor cannot relay).
var ErrInputRequests = errors.New("input requests")

// InputRequests is the session client's innermost sending middleware: for
// calls, gets and reads, it answers what the server asks (Relay's
// handlers, roots from the session's set) and sends the request again,
// unless the call passes input requests to its caller.
func (r *Relay) InputRequests(roots *RootsSync) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/call", "prompts/get", "resources/read":
			default:
				return next(ctx, method, req)
			}
			if c, _ := ctx.Value(inCallKey{}).(*Call); c != nil && c.passInput {
				return r.passInput(next(ctx, method, req))
			}
			shed := 0
			for round := 1; ; round++ {
				res, err := next(ctx, method, req)
				if err != nil {
					return res, err
				}
				asks, state := inputRequestsOf(res)
				if asks == nil {
					return res, nil
				}
				if len(asks) == 0 {
					shed++
				}
				switch {
				case shed >= maxInputShed:
					return nil, fmt.Errorf("%w: server %q shed load %d times (input required, nothing asked)", ErrInputRequests, r.server, shed)
				case round >= maxInputRounds:
					return nil, fmt.Errorf("%w: server %q still asked for input after %d rounds", ErrInputRequests, r.server, round)
				}
				answers, err := r.answerInput(ctx, asks, roots)
				if err != nil {
					return nil, err
				}
				if req, err = withInputResponses(req, answers, state); err != nil {
					return nil, err
				}
			}
		}
	}
}

// passInput is a result whose input requests go back to the caller (it
// answers them itself): they are admitted together (a call's own, but
// within the server's limits: all of them or none, so a refused batch
// spends no tokens) and each names its server, as one mcpvisor answers
// would.
func (r *Relay) passInput(res mcp.Result, err error) (mcp.Result, error) {
	if err != nil {
		return res, err
	}
	asks, _ := inputRequestsOf(res)
	shown := 0
	for _, ask := range asks {
		if _, roots := ask.(*mcp.ListRootsParams); !roots {
			shown++
		}
	}
	if err := r.admitN(true, "input request", shown); err != nil {
		return nil, err
	}
	attributeInput(asks, r.server)
	return res, nil
}

// inputRequestsOf is what a result asks of the client (nil: nothing, it
// is final; empty: the server is shedding load) and the state to echo.
func inputRequestsOf(res mcp.Result) (mcp.InputRequestMap, string) {
	switch res := res.(type) {
	case *mcp.CallToolResult:
		if res != nil {
			return res.InputRequests, res.RequestState
		}
	case *mcp.GetPromptResult:
		if res != nil {
			return res.InputRequests, res.RequestState
		}
	case *mcp.ReadResourceResult:
		if res != nil {
			return res.InputRequests, res.RequestState
		}
	}
	return nil, ""
}

// withInputResponses is req again with the answers and the state; its
// params are a copy (the caller's are never changed). The go-sdk sends
// every request as a ClientRequest[Params].
func withInputResponses(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	cr, ok := req.(*mcp.ClientRequest[mcp.Params])
	if !ok {
		return nil, fmt.Errorf("%w: cannot retry a %T", ErrInputRequests, req)
	}
	var params mcp.Params
	switch p := cr.Params.(type) {
	case *mcp.CallToolParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	case *mcp.GetPromptParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	case *mcp.ReadResourceParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	default:
		return nil, fmt.Errorf("%w: cannot retry a request of %T", ErrInputRequests, cr.Params)
	}
	return &mcp.ClientRequest[mcp.Params]{Session: cr.Session, Params: params}, nil
}

// answerInput answers every input request at once, under the call's
// context (so the Options handlers know the caller); the first failure
// cancels the others.
func (r *Relay) answerInput(ctx context.Context, asks mcp.InputRequestMap, roots *RootsSync) (mcp.InputResponseMap, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		answers  = make(mcp.InputResponseMap, len(asks))
		firstErr error
	)
	for id, ask := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answer, err := r.answerOne(ctx, ask, roots)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("input request %q of %q: %w", id, r.server, err)
					cancel()
				}
				return
			}
			answers[id] = answer
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return answers, nil
}

// answerOne answers one input request as the session answers the same
// request sent on its own (client.go): elicitation through
// Options.Elicitation (declined without it), sampling through
// Options.Sampling, roots from the session's set.
func (r *Relay) answerOne(ctx context.Context, ask mcp.InputRequest, roots *RootsSync) (mcp.InputResponse, error) {
	switch p := ask.(type) {
	case *mcp.ElicitParams:
		if r.deps.Handlers.Elicitation == nil || r.advertised == nil || r.advertised.Elicitation == nil {
			return &mcp.ElicitResult{Action: "decline"}, nil // never advertised
		}
		return r.onElicitation(ctx, &mcp.ElicitRequest{Params: p})
	case *mcp.CreateMessageWithToolsParams:
		base, err := samplingWithoutTools(p)
		if err != nil {
			return nil, err
		}
		return r.sampleInput(ctx, base)
	case *mcp.CreateMessageParams:
		return r.sampleInput(ctx, p)
	case *mcp.ListRootsParams:
		return &mcp.ListRootsResult{Roots: roots.current()}, nil
	}
	return nil, fmt.Errorf("%w: unknown input request %T", ErrInputRequests, ask)
}

func (r *Relay) sampleInput(ctx context.Context, p *mcp.CreateMessageParams) (mcp.InputResponse, error) {
	if r.deps.Handlers.Sampling == nil || r.advertised == nil || r.advertised.Sampling == nil {
		return nil, fmt.Errorf("%w: sampling asked, and mcpvisor has no one to ask", ErrInputRequests)
	}
	return r.onSampling(ctx, &mcp.CreateMessageRequest{Params: p})
}

// samplingWithoutTools is a sampling input request in the form
// Options.Sampling takes: one content block per message and no tools,
// which that form cannot carry.
func samplingWithoutTools(p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageParams, error) {
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		return nil, fmt.Errorf("%w: sampling with tools is not relayed", ErrInputRequests)
	}
	out := &mcp.CreateMessageParams{
		Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Metadata: p.Metadata,
		ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences, SystemPrompt: p.SystemPrompt,
		Temperature: p.Temperature,
	}
	for _, m := range p.Messages {
		if len(m.Content) > 1 {
			return nil, fmt.Errorf("%w: a sampling message of %d content blocks is not relayed", ErrInputRequests, len(m.Content))
		}
		var content mcp.Content
		if len(m.Content) == 1 {
			content = m.Content[0]
		}
		out.Messages = append(out.Messages, &mcp.SamplingMessage{Role: m.Role, Content: content})
	}
	return out, nil
}
