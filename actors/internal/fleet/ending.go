package fleet

import (
	"errors"
	"sync"
)

// ErrFailed: a core actor failed and the Supervisor ended (Err wraps it,
// naming the actor and the reason).
var ErrFailed = errors.New("supervisor failed")

// ending is the one-way transition of a Supervisor from running to done,
// by Close (Tree.End) or by a failure of the tree; the first one wins.
type ending struct {
	once sync.Once
	done chan struct{}
	err  error // set before done is closed
}

func newEnding() *ending { return &ending{done: make(chan struct{})} }

// end records err as the reason the Supervisor ended; it reports whether
// this was the first end.
func (e *ending) end(err error) (first bool) {
	e.once.Do(func() {
		e.err = err
		close(e.done)
		first = true
	})
	return first
}

// Err is nil while running, then the reason it ended.
func (e *ending) Err() error {
	select {
	case <-e.done:
		return e.err
	default:
		return nil
	}
}

// failed is Err when the end was a failure, nil otherwise.
func (e *ending) failed() error {
	if err := e.Err(); errors.Is(err, ErrFailed) {
		return err
	}
	return nil
}
