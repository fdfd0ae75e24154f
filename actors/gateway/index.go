package gateway

import (
	"iter"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// claim is one server's item under one exposed key (a tool or prompt name
// as the gateway exposes it, a resource URI, a URI template).
type claim[T any] struct {
	server string
	// qualified is a tool's or prompt's fleet-wide name, what the gateway
	// asks the Source for: actors.QualifiedName of the server's prefix and
	// name (resources go by their URIs, the keys).
	qualified string
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
// server's items (plus their rivals), not the fleet's: one map lookup per
// item, and a merge into the sorted order only of keys that come or go.
// Not safe for concurrent use; the Gateway's mutex guards it.
type index[T any] struct {
	kind     messages.CatalogKind
	byServer map[string]*claimSet[T] // server → its claims
	slots    map[string]*slot[T]     // key → who claims it, what is served
	// Lists are served server by server (servers sorted by name), each
	// server's keys sorted (keysOf), skipping what another server wins;
	// a page ends at a (server, key) mark (list.go). So applying one
	// server re-sorts that server's keys only, and the keys it lists in
	// order (as the fleet lists them) cost no more than one pass.
	servers []string
	keysOf  map[string][]string
	// conflicts holds every standing conflict, by key and loser.
	conflicts map[string]map[string]Conflict
	// alone holds, per server, the one-element claimant list shared by
	// the keys that server alone claims (almost all of them); never
	// written in place.
	alone map[string][]string
}

// slot is one key: the servers that claim it, in the order they came
// (almost always one), and the claim exposed under it.
type slot[T any] struct {
	servers   []string
	exposed   claim[T]
	isExposed bool
}

func newIndex[T any](kind messages.CatalogKind) *index[T] {
	return &index[T]{
		kind:      kind,
		byServer:  map[string]*claimSet[T]{},
		slots:     map[string]*slot[T]{},
		keysOf:    map[string][]string{},
		conflicts: map[string]map[string]Conflict{},
		alone:     map[string][]string{},
	}
}

// change is what one apply changes in what is exposed: keys newly
// exposed or exposed anew (new, changed, or a new winner), keys
// withdrawn, and conflicts that just appeared.
type change struct {
	add       []string
	remove    []string
	conflicts []Conflict
}

// apply makes server's claims equal to set and returns what changes in
// what is exposed; apply keeps set, which the caller must not change
// after. first picks the winner among servers that claim one key: the
// first in config order.
func (ix *index[T]) apply(server string, set *claimSet[T], first func(servers []string) string) change {
	old := ix.byServer[server]
	at, listed := slices.BinarySearch(ix.servers, server)
	if set.len() == 0 {
		delete(ix.byServer, server)
		delete(ix.keysOf, server)
		if listed {
			ix.servers = slices.Delete(ix.servers, at, at+1)
		}
	} else {
		ix.byServer[server] = set
		// The server's order, which is sorted already as the fleet lists
		// it, costs one pass.
		sorted := slices.Clone(set.keys)
		slices.Sort(sorted)
		ix.keysOf[server] = sorted
		if !listed {
			ix.servers = slices.Insert(ix.servers, at, server)
		}
	}
	var ch change
	for _, key := range old.keyList() {
		if _, still := set.at[key]; still {
			continue
		}
		sl := ix.slots[key]
		sl.servers = without(sl.servers, server)
		if byLoser := ix.conflicts[key]; byLoser != nil {
			delete(byLoser, server)
		}
		ix.settle(key, sl, nil, &ch, first)
	}
	alone := ix.only(server)
	var made slab[slot[T]]
	fresh := set.len() - old.len() // at least this many new keys, if positive
	for i, key := range set.keyList() {
		sl := ix.slots[key]
		switch {
		case sl == nil:
			sl = made.next(max(fresh, 1))
			fresh--
			sl.servers = alone
			ix.slots[key] = sl
		case old == nil:
			sl.servers = append(sl.servers, server)
		default:
			if _, had := old.at[key]; !had {
				sl.servers = append(sl.servers, server)
			}
		}
		ix.settle(key, sl, &set.claims[i], &ch, first)
	}
	slices.Sort(ch.remove) // so that what is logged reads the same each time
	return ch
}

// settle decides what key serves now that its claimants are sl.servers,
// and records the change in ch. mine is the applied server's claim of
// key, if it has one.
func (ix *index[T]) settle(key string, sl *slot[T], mine *claim[T], ch *change, first func([]string) string) {
	if len(sl.servers) == 0 {
		if sl.isExposed {
			ch.remove = append(ch.remove, key)
		}
		delete(ix.slots, key)
		delete(ix.conflicts, key)
		return
	}
	winner := sl.servers[0]
	if len(sl.servers) > 1 {
		winner = first(sl.servers)
		ch.conflicts = append(ch.conflicts, ix.noteConflicts(key, winner, sl.servers)...)
	} else if len(ix.conflicts) > 0 {
		delete(ix.conflicts, key)
	}
	var next claim[T]
	if mine != nil && mine.server == winner {
		next = *mine
	} else {
		next, _ = ix.byServer[winner].get(key)
	}
	if sl.isExposed && sl.exposed.server == next.server && sl.exposed.fp == next.fp {
		return
	}
	sl.exposed, sl.isExposed = next, true
	ch.add = append(ch.add, key)
}

// only is the claimant list of a key server alone claims.
func (ix *index[T]) only(server string) []string {
	l, ok := ix.alone[server]
	if !ok {
		l = []string{server}
		ix.alone[server] = l
	}
	return l[:1:1]
}

// without returns servers less server, never changing servers in place
// (it may be a shared one-element list).
func without(servers []string, server string) []string {
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		if s != server {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// reserve makes room for n keys in an empty index, so that loading a
// whole fleet does not grow its map step by step.
func (ix *index[T]) reserve(n int) {
	if len(ix.slots) == 0 {
		ix.slots = make(map[string]*slot[T], n)
	}
}

// noteConflicts records key's standing conflicts and returns those that
// are new (so each is reported once, when it appears).
func (ix *index[T]) noteConflicts(key, winner string, servers []string) []Conflict {
	byLoser := ix.conflicts[key]
	if byLoser == nil {
		byLoser = map[string]Conflict{}
		ix.conflicts[key] = byLoser
	}
	var fresh []Conflict
	for _, s := range servers {
		if s == winner {
			continue
		}
		c := Conflict{Kind: ix.kind, Key: key, Winner: winner, Loser: s}
		if prev, ok := byLoser[s]; !ok || prev != c {
			fresh = append(fresh, c)
		}
		byLoser[s] = c
	}
	delete(byLoser, winner)
	return fresh
}

// slab hands out new items from chunks, so that a list's new items cost
// a few allocations rather than one each. A chunk lives as long as any of
// its items is exposed; chunks grow from 16 items, doubling, never past
// what the list has left.
type slab[T any] struct{ chunk []T }

// next returns a new zero item; remaining is how many items the list
// may still need, this one included.
func (s *slab[T]) next(remaining int) *T {
	if len(s.chunk) == cap(s.chunk) {
		s.chunk = make([]T, 0, max(1, min(max(2*cap(s.chunk), 16), remaining)))
	}
	s.chunk = s.chunk[:len(s.chunk)+1]
	return &s.chunk[len(s.chunk)-1]
}

// claimSet is one server's claims of one kind, in the order it listed
// them, with an index by key (a map of small values, not of claims).
type claimSet[T any] struct {
	keys   []string
	claims []claim[T]
	at     map[string]int32
}

func newClaimSet[T any](n int) *claimSet[T] {
	return &claimSet[T]{keys: make([]string, 0, n), claims: make([]claim[T], 0, n), at: make(map[string]int32, n)}
}

// put adds c under key, or replaces what key had.
func (s *claimSet[T]) put(key string, c claim[T]) {
	if i, ok := s.at[key]; ok {
		s.claims[i] = c
		return
	}
	s.at[key] = int32(len(s.keys))
	s.keys = append(s.keys, key)
	s.claims = append(s.claims, c)
}

// has reports whether key is claimed.
func (s *claimSet[T]) has(key string) bool {
	_, ok := s.at[key]
	return ok
}

// get returns key's claim; a nil set has none.
func (s *claimSet[T]) get(key string) (claim[T], bool) {
	if s == nil {
		return claim[T]{}, false
	}
	i, ok := s.at[key]
	if !ok {
		return claim[T]{}, false
	}
	return s.claims[i], true
}

func (s *claimSet[T]) len() int {
	if s == nil {
		return 0
	}
	return len(s.keys)
}

func (s *claimSet[T]) keyList() []string {
	if s == nil {
		return nil
	}
	return s.keys
}

// held returns what server claims under key now, so that an unchanged
// item is neither exported nor fingerprinted again.
func (ix *index[T]) held(server, key string, fp string) (claim[T], bool) {
	c, ok := ix.byServer[server].get(key)
	return c, ok && c.fp == fp
}

// owner returns the claim exposed under key.
func (ix *index[T]) owner(key string) (claim[T], bool) {
	if sl, ok := ix.slots[key]; ok && sl.isExposed {
		return sl.exposed, true
	}
	return claim[T]{}, false
}

// mark is where a page ended: after key of server.
type mark struct{ server, key string }

// page returns up to size exposed claims after the mark after (from the
// first if zero), server by server, and, when more follow, the mark of
// the last.
func (ix *index[T]) page(after mark, size int) (claims []claim[T], last mark) {
	claims = make([]claim[T], 0, min(size, len(ix.slots)))
	var lastKey string
	for key, c := range ix.from(after) {
		if len(claims) == size {
			return claims, mark{claims[size-1].server, lastKey}
		}
		claims, lastKey = append(claims, c), key
	}
	return claims, mark{}
}

// from yields the exposed claims after the mark after (all if zero), in
// page order, each with its key.
func (ix *index[T]) from(after mark) iter.Seq2[string, claim[T]] {
	return func(yield func(string, claim[T]) bool) {
		i, _ := slices.BinarySearch(ix.servers, after.server)
		for ; i < len(ix.servers); i++ {
			server := ix.servers[i]
			keys := ix.keysOf[server]
			if server == after.server {
				at, found := slices.BinarySearch(keys, after.key)
				if found {
					at++
				}
				keys = keys[at:]
			}
			for _, key := range keys {
				sl := ix.slots[key]
				if sl.exposed.server == server && !yield(key, sl.exposed) {
					return
				}
			}
		}
	}
}

// keys lists the exposed keys, sorted.
func (ix *index[T]) keys() []string {
	out := make([]string, 0, len(ix.slots))
	for k, sl := range ix.slots {
		if sl.isExposed {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// standing lists the standing conflicts.
func (ix *index[T]) standing() []Conflict {
	var out []Conflict
	for _, byLoser := range ix.conflicts {
		for _, c := range byLoser {
			out = append(out, c)
		}
	}
	return out
}
