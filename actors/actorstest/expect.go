package actorstest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// Source is what a Watcher follows: *actors.Supervisor, *journal.Journal.
type Source interface {
	Follow(since uint64, buffer int) *journal.Feed
}

// Watcher records the events of a Source from its first one. Expect and
// ExpectExactly read on from where the previous one stopped. It is used
// from the test goroutine only.
type Watcher struct {
	t    testing.TB
	ctx  context.Context
	feed *journal.Feed
	seen []*messages.Envelope // every event read so far
	next int                  // index in seen of the next event to match
}

// NewWatcher follows src from its first event, bounded by Context(t); it
// is closed at the test's cleanup.
func NewWatcher(t testing.TB, src Source) *Watcher {
	t.Helper()
	w := &Watcher{t: t, ctx: Context(t), feed: src.Follow(0, 256)}
	t.Cleanup(w.feed.Close)
	return w
}

// Events returns every event read so far.
func (w *Watcher) Events() []*messages.Envelope { return w.seen[:len(w.seen):len(w.seen)] }

// Type is a filter matching any event of type T.
func Type[T messages.Event]() func(T) { return func(T) {} }

// Expect reads events until each filter, in order, has matched one;
// events between the matches are skipped. It returns an error naming the
// first filter not matched before the test context ended.
func Expect(w *Watcher, filters ...any) error {
	w.t.Helper()
	fs, err := compile(filters)
	if err != nil {
		return err
	}
	for i, f := range fs {
		for {
			env, err := w.read()
			if err != nil {
				return fmt.Errorf("expect %s (filter %d of %d): %w\n%s", f, i+1, len(fs), err, w.dump())
			}
			if f.match(env.Event) == nil {
				break
			}
		}
	}
	return nil
}

// ExpectExactly reads exactly one event per filter and fails unless each
// matches its filter: nothing else may come in between. With a Barrier
// after the injection, and Expect or ExpectExactly of what came before,
// it proves that nothing else happened.
func ExpectExactly(w *Watcher, filters ...any) error {
	w.t.Helper()
	fs, err := compile(filters)
	if err != nil {
		return err
	}
	for i, f := range fs {
		env, err := w.read()
		if err != nil {
			return fmt.Errorf("expect exactly %s (event %d of %d): %w\n%s", f, i+1, len(fs), err, w.dump())
		}
		if err := f.match(env.Event); err != nil {
			return fmt.Errorf("expect exactly %s (event %d of %d): event %d %s: %w\n%s", f, i+1, len(fs), env.Seq, env.Event.EventType(), err, w.dump())
		}
	}
	return nil
}

// read returns the next event, from those already seen or from the feed.
func (w *Watcher) read() (*messages.Envelope, error) {
	if w.next < len(w.seen) {
		w.next++
		return w.seen[w.next-1], nil
	}
	select {
	case env, ok := <-w.feed.C:
		if !ok {
			return nil, errors.New("the event feed ended (the supervisor closed)")
		}
		if tr, ok := env.Event.(*messages.FeedTruncated); ok {
			return nil, fmt.Errorf("events %d..%d were lost: %s", tr.Since+1, tr.Next-1, tr.Reason)
		}
		w.seen = append(w.seen, env)
		w.next++
		return env, nil
	case <-w.ctx.Done():
		return nil, fmt.Errorf("not seen: %w", w.ctx.Err())
	}
}

// dump renders the events read so far, the unmatched ones marked.
func (w *Watcher) dump() string {
	var b strings.Builder
	b.WriteString("events read:\n")
	for i, env := range w.seen {
		mark := " "
		if i >= w.next {
			mark = "?"
		}
		fmt.Fprintf(&b, " %s %4d %-18s %+v\n", mark, env.Seq, env.Event.EventType(), env.Event)
	}
	return b.String()
}

// filter is one compiled filter.
type filter struct {
	fn reflect.Value
	in reflect.Type
}

var (
	errorType = reflect.TypeFor[error]()
	boolType  = reflect.TypeFor[bool]()
	eventType = reflect.TypeFor[messages.Event]()
)

func compile(filters []any) ([]filter, error) {
	out := make([]filter, 0, len(filters))
	for i, f := range filters {
		v := reflect.ValueOf(f)
		if !v.IsValid() || v.Kind() == reflect.Func && v.IsNil() {
			return nil, fmt.Errorf("filter %d is nil", i+1)
		}
		ft := v.Type()
		ok := ft.Kind() == reflect.Func && ft.NumIn() == 1 && ft.NumOut() <= 1 && ft.In(0).Implements(eventType)
		if ok && ft.NumOut() == 1 {
			ok = ft.Out(0) == boolType || ft.Out(0) == errorType
		}
		if !ok {
			return nil, fmt.Errorf("filter %d is %T: want func(E), func(E) bool or func(E) error for an event type E", i+1, f)
		}
		out = append(out, filter{fn: v, in: ft.In(0)})
	}
	return out, nil
}

// match is nil when ev matches.
func (f filter) match(ev messages.Event) error {
	v := reflect.ValueOf(ev)
	if !v.Type().AssignableTo(f.in) {
		return fmt.Errorf("is %T, not %s", ev, f.in)
	}
	res := f.fn.Call([]reflect.Value{v})
	switch {
	case len(res) == 0:
		return nil
	case res[0].Type() == boolType:
		if !res[0].Bool() {
			return errors.New("filter said no")
		}
		return nil
	case res[0].IsNil():
		return nil
	default:
		return res[0].Interface().(error)
	}
}

func (f filter) String() string { return f.in.String() }
