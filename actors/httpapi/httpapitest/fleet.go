package httpapitest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Epoch is the time of the fake's first event; each next event is one
// millisecond later, so output that shows times is deterministic.
var Epoch = time.Date(2026, 3, 1, 10, 2, 11, 204_000_000, time.UTC)

// Fleet implements httpapi.Fleet from fields a test sets. The zero value
// is an empty fleet: no servers, no tools, no events; calls fail unless
// CallFunc is set. Its events live in a real journal.Journal, so the API
// follows them exactly as it follows a supervisor's.
type Fleet struct {
	// CallFunc answers CallTool; nil answers every call with an error.
	CallFunc func(ctx context.Context, name string, args any) (*mcp.CallToolResult, error)
	// GetPromptFunc and ReadFunc answer GetPrompt and ReadResource; nil
	// answers with an error.
	GetPromptFunc func(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
	ReadFunc      func(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
	// ResyncFunc answers Resync; nil answers an empty plan and outcome.
	ResyncFunc func(ctx context.Context, dryRun bool) (*messages.ResyncPlanned, *messages.ResyncCompleted, error)
	// Keep bounds the journal's events (0: the journal's default). Set it
	// before the first Publish or Follow.
	Keep int
	// Buffer, when positive, overrides the buffer a follower asks for, so
	// a test can make a slow follower.
	Buffer int
	// OnFollow, when set, runs at the end of every Follow (the feed has
	// started), on the follower's goroutine.
	OnFollow func()

	once    sync.Once
	journal *journal.Journal
	stamp   atomic.Int64 // the time Now answers, as Unix nanoseconds

	mu        sync.Mutex
	status    messages.Status
	tools     []messages.Tool
	prompts   []messages.Prompt
	resources []messages.Resource
	templates []messages.ResourceTemplate
	err       error
	following chan struct{} // gets a value per Follow, if anyone waits
	unfollow  chan struct{} // gets a value per feed end, if anyone waits
	open      int           // feeds open, as last reported by the journal
}

func (f *Fleet) events() *journal.Journal {
	f.once.Do(func() {
		f.stamp.Store(Epoch.UnixNano())
		f.journal = journal.New(journal.Options{
			MaxEvents: f.Keep,
			Now:       func() time.Time { return time.Unix(0, f.stamp.Load()).UTC() },
			OnFollowers: func(n int) {
				f.mu.Lock()
				defer f.mu.Unlock()
				if n < f.open {
					signal(f.unfollow)
				}
				f.open = n
			},
		})
	})
	return f.journal
}

// signal sends on ch without blocking, if ch exists.
func signal(ch chan struct{}) {
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
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

// SetErr sets what Err returns (a failed or closed supervisor).
func (f *Fleet) SetErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
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
func (f *Fleet) GetPrompt(ctx context.Context, name string, args map[string]string, _ ...actors.CallOption) (*mcp.GetPromptResult, error) {
	if f.GetPromptFunc == nil {
		return nil, errors.New("httpapitest: no GetPromptFunc set")
	}
	return f.GetPromptFunc(ctx, name, args)
}

// ReadResource implements httpapi.Fleet.
func (f *Fleet) ReadResource(ctx context.Context, uri string, _ ...actors.CallOption) (*mcp.ReadResourceResult, error) {
	if f.ReadFunc == nil {
		return nil, errors.New("httpapitest: no ReadFunc set")
	}
	return f.ReadFunc(ctx, uri)
}

// Err implements httpapi.Fleet.
func (f *Fleet) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// CallTool implements httpapi.Fleet.
func (f *Fleet) CallTool(ctx context.Context, name string, args any, _ ...actors.CallOption) (*mcp.CallToolResult, error) {
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

// Publish journals ev with the next sequence number, stamped Epoch plus
// one millisecond per earlier event, and wakes every follower.
func (f *Fleet) Publish(ev messages.Event) *messages.Envelope {
	j := f.events()
	f.mu.Lock() // one publisher at a time, so stamps follow numbers
	defer f.mu.Unlock()
	f.stamp.Store(Epoch.Add(time.Duration(j.Newest()) * time.Millisecond).UnixNano())
	return j.Publish(ev)
}

// Follow implements httpapi.Fleet.
func (f *Fleet) Follow(since uint64, buffer int) *journal.Feed {
	if f.Buffer > 0 {
		buffer = f.Buffer
	}
	fd := f.events().Follow(since, buffer)
	f.mu.Lock()
	signal(f.following)
	f.mu.Unlock()
	if f.OnFollow != nil {
		f.OnFollow()
	}
	return fd
}

// Followers returns a channel that receives a value each time Follow is
// called from now on (buffered; extra calls beyond the buffer are not
// reported). A test waits on it to know a stream follows.
func (f *Fleet) Followers() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.following == nil {
		f.following = make(chan struct{}, 64)
	}
	return f.following
}

// Unfollowers returns a channel that receives a value each time a feed
// ends from now on (buffered like Followers).
func (f *Fleet) Unfollowers() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unfollow == nil {
		f.unfollow = make(chan struct{}, 64)
	}
	return f.unfollow
}

// Following is the number of open feeds.
func (f *Fleet) Following() int { return f.events().Followers() }

var _ httpapi.Fleet = (*Fleet)(nil)
