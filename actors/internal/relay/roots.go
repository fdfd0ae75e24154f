//lint:file-ignore SA1019 roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what this file relays.

package relay

import (
	"maps"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RootsSync applies the newest wanted roots to a client; concurrent
// applies end with the newest set, whatever order they run in.
type RootsSync struct {
	mu      sync.Mutex
	wanted  []*mcp.Root
	applied map[string]bool
}

// Want sets the roots the server should see; Apply announces them.
func (r *RootsSync) Want(roots []*mcp.Root) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wanted = slices.Clone(roots)
}

// current is the set the session's server should see now (what an input
// request for roots is answered with).
func (r *RootsSync) current() []*mcp.Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.wanted)
}

// Apply brings client's roots in line with the wanted ones: the go-sdk
// notifies the server from AddRoots and RemoveRoots, so call it off the
// actor's goroutine once the session is connected (before, it sends
// nothing).
func (r *RootsSync) Apply(client *mcp.Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make(map[string]bool, len(r.wanted))
	for _, root := range r.wanted {
		next[root.URI] = true
	}
	if r.applied != nil && maps.Equal(next, r.applied) {
		return // nothing to announce
	}
	var gone []string
	for uri := range r.applied {
		if !next[uri] {
			gone = append(gone, uri)
		}
	}
	slices.Sort(gone)
	client.RemoveRoots(gone...)
	client.AddRoots(r.wanted...)
	r.applied = next
}
