package watcher

import (
	"fmt"

	"github.com/fsnotify/fsnotify"
)

// Notifier is the kernel event source a Watcher drives. The default is
// [NewFSNotifier] (one inotify instance); tests substitute fakes through
// [Options.NewNotifier] to inject events, overflow and watch failures.
//
// The Watcher calls Add, Remove and Close from its own goroutine only, and it
// drains Events and Errors until it calls Close. An implementation must:
//   - report event names as the directory passed to Add joined with the
//     entry name, and report an event on the watched directory itself with
//     the directory's own path (fsnotify does both);
//   - report a lost-event condition as [fsnotify.ErrEventOverflow] on Errors;
//   - close both channels after Close, or when it can no longer deliver.
//     A closed channel the Watcher did not ask for degrades it to polling.
type Notifier interface {
	// Add starts watching the entries of directory dir. Adding a path that
	// is already watched must watch whatever directory is at that path now
	// (fsnotify does): after an overflow the Watcher re-adds every
	// directory to pick up ones replaced while events were lost.
	Add(dir string) error
	// Remove stops watching dir. An error for a directory that is no
	// longer watched (deleted, renamed) is expected and ignored.
	Remove(dir string) error
	// Events delivers entry changes in the watched directories.
	Events() <-chan fsnotify.Event
	// Errors delivers asynchronous failures, including overflow.
	Errors() <-chan error
	// Close releases the watches and the kernel resources. It must not
	// block on an undrained channel.
	Close() error
}

// NewFSNotifier returns the default Notifier: one fsnotify (inotify on Linux)
// instance. A Watcher uses exactly one, whatever the number of directories,
// because the kernel limits instances per user (128 by default) far more
// tightly than watches.
func NewFSNotifier() (Notifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("create fsnotify watcher: %w", err)
	}
	return fsNotifier{w}, nil
}

// fsNotifier adapts *fsnotify.Watcher, whose channels are fields, to Notifier.
type fsNotifier struct{ w *fsnotify.Watcher }

func (n fsNotifier) Add(dir string) error          { return n.w.Add(dir) }
func (n fsNotifier) Remove(dir string) error       { return n.w.Remove(dir) }
func (n fsNotifier) Events() <-chan fsnotify.Event { return n.w.Events }
func (n fsNotifier) Errors() <-chan error          { return n.w.Errors }
func (n fsNotifier) Close() error                  { return n.w.Close() }
