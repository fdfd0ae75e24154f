package verbatim

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
)

// Recent keeps the raw JSON of the last few messages of a kind that a
// connection read and whose reader (the go-sdk) hands on only a typed
// value with no id: the params of a server's elicitation/create (an
// upstream connection's), a client's answer to one (a downstream
// connection's). Whoever holds the typed value finds its bytes by
// content (Take): the raw message whose typed decoding equals it. Two
// messages that decode alike differ at most in key order and spacing, so
// the one taken is the other's equal in everything but that. The zero
// value is ready; safe for concurrent use.
type Recent struct {
	mu    sync.Mutex
	items []recentItem
}

type recentItem struct {
	kind string
	raw  json.RawMessage
}

// maxRecent bounds what a Recent keeps: a message is taken within its
// request's handling, so only as many as are handled at once wait.
const maxRecent = 16

// Add keeps raw (copied) as a message of kind, forgetting the oldest
// beyond maxRecent.
func (r *Recent) Add(kind string, raw json.RawMessage) {
	if r == nil || len(raw) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) == maxRecent {
		r.items = append(r.items[:0], r.items[1:]...)
	}
	r.items = append(r.items, recentItem{kind, bytes.Clone(raw)})
}

// Take is the newest kept message of kind whose decoding into a T
// marshals as typed does (typed is itself such a decoding, not yet
// changed), which r then forgets; nil if none matches.
func Take[T any](r *Recent, kind string, typed *T) json.RawMessage {
	if r == nil || typed == nil {
		return nil
	}
	want, err := json.Marshal(typed)
	if err != nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.items) - 1; i >= 0; i-- {
		it := r.items[i]
		if it.kind != kind {
			continue
		}
		var v T
		if json.Unmarshal(it.raw, &v) != nil {
			continue
		}
		if got, err := json.Marshal(&v); err == nil && bytes.Equal(got, want) {
			r.items = append(r.items[:i], r.items[i+1:]...)
			return it.raw
		}
	}
	return nil
}

// Record records raw as the result of a call of method in s: for a
// caller that read a result itself (a response its transport cannot
// wrap) and hands it to whoever captured the call.
func (s *Slot) Record(method string, raw json.RawMessage) {
	if s != nil && raw != nil {
		s.record(method, raw)
	}
}

// SlotOf is the Slot ctx carries (Capture), or nil: for a caller that
// reads a result itself and records it (Record).
func SlotOf(ctx context.Context) *Slot { return slotOf(ctx) }
