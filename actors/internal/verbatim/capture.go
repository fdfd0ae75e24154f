package verbatim

import (
	"context"
	"encoding/json"
	"sync"
)

// A Slot receives the result of the calls sent under a context that
// carries it (Capture). Safe for concurrent use.
type Slot struct {
	mu      sync.Mutex
	results []captured
}

type captured struct {
	method string
	result json.RawMessage
}

// maxCaptured bounds what one Slot keeps: a call retried with input
// responses (2026-07-28) sends the same method again, and only its last
// result matters; a listing's pages are read one at a time.
const maxCaptured = 8

type slotKey struct{}

// Capture returns ctx carrying a new Slot: the result of each call sent
// under it (or a context derived from it) is recorded there.
func Capture(ctx context.Context) (context.Context, *Slot) {
	s := &Slot{}
	return context.WithValue(ctx, slotKey{}, s), s
}

// slotOf is the Slot ctx carries, or nil.
func slotOf(ctx context.Context) *Slot {
	s, _ := ctx.Value(slotKey{}).(*Slot)
	return s
}

// Result is the result of the last call recorded if that call was one of
// method, else nil: a request whose answer came from a later call of
// another method (a task's result fetched after the call that started
// it) has no bytes of its own here, and its typed value must be used.
func (s *Slot) Result(method string) json.RawMessage {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.results); n > 0 && s.results[n-1].method == method {
		return s.results[n-1].result
	}
	return nil
}

// Take is the result of the last call of method recorded, which the Slot
// then forgets (with every result recorded before it): a caller that
// makes several calls under one context (a listing's pages) takes each.
func (s *Slot) Take(method string) json.RawMessage {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.results) - 1; i >= 0; i-- {
		if s.results[i].method == method {
			r := s.results[i].result
			s.results = append(s.results[:0], s.results[i+1:]...)
			return r
		}
	}
	return nil
}

func (s *Slot) record(method string, result json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.results) == maxCaptured {
		s.results = append(s.results[:0], s.results[1:]...)
	}
	s.results = append(s.results, captured{method, result})
}
