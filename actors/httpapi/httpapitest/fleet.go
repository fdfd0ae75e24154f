// Package httpapitest provides Fleet, a scriptable in-memory stand-in for a
// supervisor behind the HTTP API, for the API's and the CLI's tests.
//
// Goroutines: none. Publish delivers to followers on the caller's
// goroutine without blocking (a full buffer drops and counts, as the real
// subscription does).
package httpapitest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Epoch is the time of the fake's first event; each next event is one
// millisecond later, so output that shows times is deterministic.
var Epoch = time.Date(2026, 3, 1, 10, 2, 11, 204_000_000, time.UTC)

// Fleet implements httpapi.Fleet from fields a test sets. The zero value
// is an empty fleet: no servers, no tools, no events; calls fail unless
// CallFunc is set.
type Fleet struct {
	// CallFunc answers CallTool; nil answers every call with an error.
	CallFunc func(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
	// GetPromptFunc and ReadFunc answer GetPrompt and ReadResource; nil
	// answers with an error.
	GetPromptFunc func(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	ReadFunc      func(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	// ResyncFunc answers Resync; nil answers an empty plan and outcome.
	ResyncFunc func(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error)
	// Keep bounds the journal like the real one's ring (0: keep all).
	Keep int
	// Buffer, when positive, overrides the buffer a follower asks for, so
	// a test can make a subscription drop events.
	Buffer int
	// OnFollow, when set, runs at the end of every Follow (the feed is
	// already subscribed), on the follower's goroutine: a test publishes
	// from it to hit the window between subscribing and replaying.
	OnFollow func()

	mu        sync.Mutex
	status    messages.Status
	tools     []messages.Tool
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
	seq       uint64
	journal   []*messages.Envelope
	feeds     map[*feed]bool
	following chan struct{} // gets a value per Follow, if anyone waits
	unfollow  chan struct{} // gets a value per feed Close, if anyone waits
}

// SetStatus sets what Status returns.
func (f *Fleet) SetStatus(st messages.Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = st
}

// SetTools sets what Tools returns.
func (f *Fleet) SetTools(tools []messages.Tool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tools = tools
}

// Status implements httpapi.Fleet.
func (f *Fleet) Status() messages.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

// Tools implements httpapi.Fleet.
func (f *Fleet) Tools() []messages.Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]messages.Tool{}, f.tools...)
}

// SetCatalog sets what Prompts, Resources and ResourceTemplates return.
func (f *Fleet) SetCatalog(prompts []messages.Prompt, resources []messages.Resource, templates []messages.ResourceTemplate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts, f.resources, f.templates = prompts, resources, templates
}

// Prompts implements httpapi.Fleet.
func (f *Fleet) Prompts() []messages.Prompt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]messages.Prompt{}, f.prompts...)
}

// Resources implements httpapi.Fleet.
func (f *Fleet) Resources() []messages.Resource {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]messages.Resource{}, f.resources...)
}

// ResourceTemplates implements httpapi.Fleet.
func (f *Fleet) ResourceTemplates() []messages.ResourceTemplate {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]messages.ResourceTemplate{}, f.templates...)
}

// GetPrompt implements httpapi.Fleet.
func (f *Fleet) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	if f.GetPromptFunc == nil {
		return nil, errors.New("httpapitest: no GetPromptFunc set")
	}
	return f.GetPromptFunc(ctx, name, args)
}

// ReadResource implements httpapi.Fleet.
func (f *Fleet) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	if f.ReadFunc == nil {
		return nil, errors.New("httpapitest: no ReadFunc set")
	}
	return f.ReadFunc(ctx, uri)
}

// CallTool implements httpapi.Fleet.
func (f *Fleet) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	if f.CallFunc == nil {
		return nil, errors.New("httpapitest: no CallFunc set")
	}
	return f.CallFunc(ctx, name, args)
}

// Resync implements httpapi.Fleet.
func (f *Fleet) Resync(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error) {
	if f.ResyncFunc != nil {
		return f.ResyncFunc(ctx, dryRun)
	}
	planned := &messages.ResyncPlanned{ID: "resync-0", DryRun: dryRun, Steps: []messages.PlanStep{}}
	if dryRun {
		return planned, nil, nil
	}
	return planned, &messages.ResyncCompleted{ID: "resync-0", Outcomes: []messages.ServerOutcome{}}, nil
}

// Publish journals ev with the next sequence number and delivers it to
// every follower.
func (f *Fleet) Publish(ev messages.Event) *messages.Envelope {
	f.mu.Lock()
	defer f.mu.Unlock()
	env := &messages.Envelope{Seq: f.seq + 1, Time: Epoch.Add(time.Duration(f.seq) * time.Millisecond), Event: ev}
	f.seq++
	f.journal = append(f.journal, env)
	if f.Keep > 0 && len(f.journal) > f.Keep {
		f.journal = f.journal[len(f.journal)-f.Keep:]
	}
	for fd := range f.feeds {
		fd.deliver(env)
	}
	return env
}

// EventsSince implements httpapi.Fleet like the real journal.
func (f *Fleet) EventsSince(seq uint64) ([]*messages.Envelope, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []*messages.Envelope{}
	truncated := len(f.journal) > 0 && f.journal[0].Seq > seq+1
	for _, env := range f.journal {
		if env.Seq > seq {
			out = append(out, env)
		}
	}
	return out, truncated
}

// Follow implements httpapi.Fleet.
func (f *Fleet) Follow(buffer int) httpapi.Feed {
	fd := f.follow(buffer)
	if f.OnFollow != nil {
		f.OnFollow()
	}
	return fd
}

func (f *Fleet) follow(buffer int) *feed {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Buffer > 0 {
		buffer = f.Buffer
	}
	fd := &feed{f: f, ch: make(chan *messages.Envelope, max(buffer, 1))}
	if f.feeds == nil {
		f.feeds = map[*feed]bool{}
	}
	f.feeds[fd] = true
	if f.following != nil {
		select {
		case f.following <- struct{}{}:
		default:
		}
	}
	return fd
}

// Followers returns a channel that receives a value each time Follow is
// called from now on (buffered; extra calls beyond the buffer are not
// reported). A test waits on it to know a stream has subscribed.
func (f *Fleet) Followers() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.following == nil {
		f.following = make(chan struct{}, 64)
	}
	return f.following
}

// Unfollowers returns a channel that receives a value each time a feed
// is closed from now on (buffered like Followers).
func (f *Fleet) Unfollowers() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unfollow == nil {
		f.unfollow = make(chan struct{}, 64)
	}
	return f.unfollow
}

// Following is the number of open feeds.
func (f *Fleet) Following() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.feeds)
}

type feed struct {
	f       *Fleet
	ch      chan *messages.Envelope
	dropped uint64 // guarded by f.mu
	closed  bool   // guarded by f.mu
}

func (fd *feed) deliver(env *messages.Envelope) {
	select {
	case fd.ch <- env:
	default:
		fd.dropped++
	}
}

func (fd *feed) Events() <-chan *messages.Envelope { return fd.ch }

func (fd *feed) Dropped() uint64 {
	fd.f.mu.Lock()
	defer fd.f.mu.Unlock()
	return fd.dropped
}

func (fd *feed) Close() {
	fd.f.mu.Lock()
	defer fd.f.mu.Unlock()
	if !fd.closed {
		fd.closed = true
		delete(fd.f.feeds, fd)
		close(fd.ch)
		if fd.f.unfollow != nil {
			select {
			case fd.f.unfollow <- struct{}{}:
			default:
			}
		}
	}
}
