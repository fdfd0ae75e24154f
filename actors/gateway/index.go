package gateway

import (
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// claim is one server's item under one exposed key (a tool or prompt name
// as the gateway exposes it, a resource URI, a URI template).
type claim[T any] struct {
	server string
	// name is the server's own name for the item: what the gateway asks
	// the Source for.
	name string
	// fp fingerprints what the gateway exposes of the item: an unchanged
	// claim is not exposed again (which would announce a change).
	fp   string
	item T
}

// Conflict is one exposed key that two servers claim: Winner's item is
// exposed, Loser's is not (until Winner withdraws it).
type Conflict struct {
	Kind   messages.CatalogKind `json:"kind"`
	Key    string               `json:"key"`
	Winner string               `json:"winner"`
	Loser  string               `json:"loser"`
}

// index is one kind's view of the fleet: every server's claims, and which
// claim each exposed key serves. Applying one server's items costs that
// server's items (plus their rivals), not the fleet's. Not safe for
// concurrent use; the Gateway's mutex guards it.
type index[T any] struct {
	kind     messages.CatalogKind
	byServer map[string]map[string]claim[T] // server → key → its claim
	// claimants lists, per key, the servers that claim it; almost always
	// one.
	claimants map[string][]string
	exposed   map[string]claim[T] // key → the claim served
	// conflicts holds every standing conflict, by key and loser.
	conflicts map[[2]string]Conflict
}

func newIndex[T any](kind messages.CatalogKind) *index[T] {
	return &index[T]{
		kind:      kind,
		byServer:  map[string]map[string]claim[T]{},
		claimants: map[string][]string{},
		exposed:   map[string]claim[T]{},
		conflicts: map[[2]string]Conflict{},
	}
}

// change is what one apply asks of the MCP server: claims to expose (new,
// changed, or a new winner), keys to withdraw, and conflicts that just
// appeared.
type change[T any] struct {
	add       []claim[T]
	remove    []string
	conflicts []Conflict
}

// apply makes server's claims equal to claims (key → claim) and returns
// what changes in what is exposed. first picks the winner among servers
// that claim one key: the first in config order.
func (ix *index[T]) apply(server string, claims map[string]claim[T], first func(servers []string) string) change[T] {
	old := ix.byServer[server]
	touched := make([]string, 0, len(old)+len(claims))
	for key := range old {
		if _, still := claims[key]; !still {
			ix.claimants[key] = slices.DeleteFunc(ix.claimants[key], func(s string) bool { return s == server })
			if len(ix.claimants[key]) == 0 {
				delete(ix.claimants, key)
			}
			delete(ix.conflicts, [2]string{key, server})
			touched = append(touched, key)
		}
	}
	for key := range claims {
		if _, had := old[key]; !had {
			ix.claimants[key] = append(ix.claimants[key], server)
		}
		touched = append(touched, key)
	}
	if len(claims) == 0 {
		delete(ix.byServer, server)
	} else {
		ix.byServer[server] = claims
	}
	slices.Sort(touched)

	var ch change[T]
	for _, key := range touched {
		servers := ix.claimants[key]
		cur, isExposed := ix.exposed[key]
		if len(servers) == 0 {
			if isExposed {
				delete(ix.exposed, key)
				ch.remove = append(ch.remove, key)
			}
			continue
		}
		winner := servers[0]
		if len(servers) > 1 {
			winner = first(servers)
			ch.conflicts = append(ch.conflicts, ix.noteConflicts(key, winner, servers)...)
		} else {
			ix.clearConflicts(key)
		}
		next := ix.byServer[winner][key]
		if isExposed && cur.server == next.server && cur.fp == next.fp {
			continue
		}
		ix.exposed[key] = next
		ch.add = append(ch.add, next)
	}
	return ch
}

// noteConflicts records key's standing conflicts and returns those that
// are new (so each is reported once, when it appears).
func (ix *index[T]) noteConflicts(key, winner string, servers []string) []Conflict {
	var fresh []Conflict
	for _, s := range servers {
		if s == winner {
			continue
		}
		c := Conflict{Kind: ix.kind, Key: key, Winner: winner, Loser: s}
		if prev, ok := ix.conflicts[[2]string{key, s}]; !ok || prev != c {
			fresh = append(fresh, c)
		}
		ix.conflicts[[2]string{key, s}] = c
	}
	delete(ix.conflicts, [2]string{key, winner})
	return fresh
}

func (ix *index[T]) clearConflicts(key string) {
	for k := range ix.conflicts {
		if k[0] == key {
			delete(ix.conflicts, k)
		}
	}
}

// reject forgets an exposed claim the MCP server refused, so that what the
// index says is exposed stays true.
func (ix *index[T]) reject(key string) {
	c, ok := ix.exposed[key]
	if !ok {
		return
	}
	delete(ix.exposed, key)
	delete(ix.byServer[c.server], key)
	if len(ix.byServer[c.server]) == 0 {
		delete(ix.byServer, c.server)
	}
	ix.claimants[key] = slices.DeleteFunc(ix.claimants[key], func(s string) bool { return s == c.server })
	if len(ix.claimants[key]) == 0 {
		delete(ix.claimants, key)
	}
}

// owner returns the claim exposed under key.
func (ix *index[T]) owner(key string) (claim[T], bool) {
	c, ok := ix.exposed[key]
	return c, ok
}

// servers lists the servers that claim anything.
func (ix *index[T]) servers() []string {
	out := make([]string, 0, len(ix.byServer))
	for s := range ix.byServer {
		out = append(out, s)
	}
	return out
}

// keys lists the exposed keys, sorted.
func (ix *index[T]) keys() []string {
	out := make([]string, 0, len(ix.exposed))
	for k := range ix.exposed {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// standing lists the standing conflicts.
func (ix *index[T]) standing() []Conflict {
	out := make([]Conflict, 0, len(ix.conflicts))
	for _, c := range ix.conflicts {
		out = append(out, c)
	}
	return out
}
