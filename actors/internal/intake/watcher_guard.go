package intake

import (
	"fmt"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpvisor/mcpvisor/watcher"
)

// guardNotifiers wraps every Notifier the watcher gets from newNotifier
// (nil: fsnotify) so that a panic in one is an error, not a crash. The
// watcher calls a Notifier on its own goroutines, where a panic would end
// the whole process; an error makes it fall back to polling and report
// WatcherDegraded with the reason. newNotifier itself runs on the actor's
// goroutine: a panic there fails the watcher actor, which is rebuilt.
func guardNotifiers(newNotifier func() (watcher.Notifier, error)) func() (watcher.Notifier, error) {
	if newNotifier == nil {
		newNotifier = watcher.NewFSNotifier
	}
	return func() (watcher.Notifier, error) {
		n, err := newNotifier()
		if err != nil || n == nil {
			return n, err
		}
		return guardedNotifier{n}, nil
	}
}

type guardedNotifier struct{ n watcher.Notifier }

// notifierPanic turns a recovered panic into *err.
func notifierPanic(err *error, method string) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("file notifier %s panicked: %v", method, v)
	}
}

func (g guardedNotifier) Add(dir string) (err error) {
	defer notifierPanic(&err, "Add")
	return g.n.Add(dir)
}

func (g guardedNotifier) Remove(dir string) (err error) {
	defer notifierPanic(&err, "Remove")
	return g.n.Remove(dir)
}

func (g guardedNotifier) Close() (err error) {
	defer notifierPanic(&err, "Close")
	return g.n.Close()
}

// Events and Errors answer a closed channel if the Notifier panics: the
// watcher takes a channel it did not close as a dead notifier and polls.
func (g guardedNotifier) Events() (ch <-chan fsnotify.Event) {
	defer func() {
		if recover() != nil {
			c := make(chan fsnotify.Event)
			close(c)
			ch = c
		}
	}()
	return g.n.Events()
}

func (g guardedNotifier) Errors() (ch <-chan error) {
	defer func() {
		if recover() != nil {
			c := make(chan error)
			close(c)
			ch = c
		}
	}()
	return g.n.Errors()
}
