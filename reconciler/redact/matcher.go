package redact

import (
	"slices"
)

// matcher finds every occurrence of a set of byte strings in one pass
// (Aho-Corasick). State 0 is the root; each other state is a trie node, the
// prefix of some pattern. Moving on byte c from state s follows s's edge for
// c, or else s's failure link (the longest proper suffix of s that is also a
// trie node) and tries again, ending at the root, whose transitions are a
// dense table because most bytes of ordinary text leave the automaton there.
//
// Only the longest pattern ending at each position matters for redaction
// (shorter ones ending there lie inside it), so each state stores out: the
// length of the longest pattern that is a suffix of the state's string,
// inherited along failure links.
type matcher struct {
	root  [256]int32
	nodes []acNode
	edges []acEdge // grouped by node, sorted by byte within a node
}

type acNode struct {
	first, count int32 // edges[first : first+count]
	fail         int32
	out          int32
}

type acEdge struct {
	c  byte
	to int32
}

// span is a half-open byte range [start, end) of text covered by secrets.
type span struct{ start, end int }

func newMatcher(patterns []string) *matcher {
	// Build the trie with per-node edge lists.
	type trieNode struct {
		edges []acEdge
		depth int32
		term  bool
	}
	trie := []trieNode{{}}
	for _, p := range patterns {
		s := int32(0)
		for i := 0; i < len(p); i++ {
			next := int32(-1)
			for _, e := range trie[s].edges {
				if e.c == p[i] {
					next = e.to
					break
				}
			}
			if next < 0 {
				next = int32(len(trie))
				trie = append(trie, trieNode{depth: trie[s].depth + 1})
				trie[s].edges = append(trie[s].edges, acEdge{c: p[i], to: next})
			}
			s = next
		}
		trie[s].term = true
	}

	// Flatten the edges and fill the root table.
	m := &matcher{nodes: make([]acNode, len(trie))}
	for i := range trie {
		es := trie[i].edges
		slices.SortFunc(es, func(a, b acEdge) int { return int(a.c) - int(b.c) })
		m.nodes[i].first = int32(len(m.edges))
		m.nodes[i].count = int32(len(es))
		m.edges = append(m.edges, es...)
	}
	for _, e := range trie[0].edges {
		m.root[e.c] = e.to
	}

	// Failure links and outputs, breadth first: a node's failure target is
	// shallower, so it is complete by the time the node is dequeued.
	queue := make([]int32, 0, len(trie))
	for _, e := range trie[0].edges {
		queue = append(queue, e.to) // fail = 0 already
	}
	for qi := 0; qi < len(queue); qi++ {
		u := queue[qi]
		n := &m.nodes[u]
		if trie[u].term {
			n.out = trie[u].depth
		}
		n.out = max(n.out, m.nodes[n.fail].out)
		for _, e := range m.edges[n.first : n.first+n.count] {
			m.nodes[e.to].fail = m.next(n.fail, e.c)
			queue = append(queue, e.to)
		}
	}
	return m
}

// next is the transition function.
func (m *matcher) next(s int32, c byte) int32 {
	for s != 0 {
		n := &m.nodes[s]
		for _, e := range m.edges[n.first : n.first+n.count] {
			if e.c == c {
				return e.to
			}
			if e.c > c {
				break
			}
		}
		s = n.fail
	}
	return m.root[c]
}

// find appends to spans the maximal ranges of text covered by patterns, in
// order. Matches are reported by their end, which only grows, so a new match
// can only merge with the spans at the end of the list.
func (m *matcher) find(text string, spans []span) []span {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		if s == 0 {
			s = m.root[text[i]]
		} else {
			s = m.next(s, text[i])
		}
		if l := int(m.nodes[s].out); l > 0 {
			start, end := i+1-l, i+1
			for len(spans) > 0 && start <= spans[len(spans)-1].end {
				start = min(start, spans[len(spans)-1].start)
				spans = spans[:len(spans)-1]
			}
			spans = append(spans, span{start, end})
		}
	}
	return spans
}
