// Package watcher turns file-system events on configuration files into "these
// paths may have changed" callbacks. It is a trigger, not a reader: a
// notification says that something may have changed, never what, and the
// consumer re-reads whatever it needs (level-triggered). A missed or merged
// event therefore costs nothing as long as some notification follows the last
// change, and that is the one guarantee the package makes.
//
// # What it owns
//
// A Watcher owns one Notifier (by default one fsnotify/inotify instance,
// whatever the number of paths: by default the kernel allows a user only 128
// instances),
// the kernel watches in it, a debounce burst (two quartz timers) and, when
// degraded, a quartz ticker. It owns no configuration semantics: it never
// parses the files, and hashes them only to drop notifications for content
// that did not change.
//
// # How a path is watched
//
// A configured path is watched through directory entries, never through the
// file itself: watching a file loses the watch on the first atomic save,
// while the parent directory sees an atomic rename-over, a vim-style save
// (rename away, write new) and delete-then-recreate alike. The directories are:
//
//   - the path's real parent directory, filtered on the file's name;
//   - for a path that is, or lies under, a symlink: the directory of every
//     link on the way, filtered on the link's name, plus the target's
//     directory. The path is resolved again after every entry event (create,
//     remove, rename), so retargeting a link, such as the Kubernetes
//     ConfigMap "..data" swap, is a change, and the old target's directory is
//     released;
//   - for a path whose parent does not exist yet: its nearest existing
//     ancestor, filtered on the next missing component. When that appears the
//     watch moves deeper, as many levels as now exist, and the path is
//     rescanned, because inotify does not report entries created before a
//     watch was added.
//
// Directories are reference counted: two files in one directory share one
// watch, and Sync releases watches nobody needs. Events for other entries of
// a watched directory cost a few map lookups and do nothing else: they do
// not even start a debounce timer.
//
// Limitation: ancestors above the parent directory are watched only while a
// level is missing or is a symlink. Renaming a plain (non-symlink) directory
// two or more levels above an existing file is therefore not seen by itself;
// the next event in a watched directory corrects the view. Deleting, renaming
// or replacing the parent directory itself is seen.
//
// # When it notifies
//
// Events are debounced: a burst ends Options.Debounce (100 ms) after its last
// event, or Options.MaxWait (2 s) after its first, whichever is sooner, so
// continuous churn still notifies. When a burst ends, each path the burst
// touched is read: existence, file type, and a SHA-256 of a regular file's
// content. A path is reported only if that differs from the last look, so a
// rewrite with identical bytes, a touch, or a file that stays absent is
// silent, while appearing and disappearing are changes. The first look is
// taken by New (and by Sync for added paths): changes made after New returns
// are reported, so read the files after New returns.
//
// On fsnotify.ErrEventOverflow (the kernel queue overflowed and events were
// lost) every directory is watched afresh and the next notification reports
// every path, whether its content changed or not.
//
// If a watch cannot be set up (inotify watch or instance limits, a file
// system without inotify, permissions, or Options.NewNotifier failing), the
// watcher does not fail: it closes the Notifier, polls every path on a
// quartz ticker every Options.PollInterval (2 s), reports the same state
// differences, and calls OnDegraded once with the reason. New returns an
// error only for invalid (relative) paths. While inotify works there is no
// ticker: an idle watcher uses no CPU.
//
// All timing goes through Options.Clock, with these calls a test can trap:
//
//   - a burst starts with NewTimer(MaxWait, "watcher", "maxwait") and then
//     NewTimer(Debounce, "watcher", "debounce"), so once the second call is
//     released both deadlines exist;
//   - each further event of the burst is Timer.Reset(Debounce, "watcher",
//     "debounce"); an event for an unwatched entry makes no clock call;
//   - a burst ends with Timer.Stop("watcher", "debounce") and then
//     Timer.Stop("watcher", "maxwait"), before the paths are read;
//   - polling is NewTicker(PollInterval, "watcher", "poll"). When the
//     fallback happens inside New it is created on the caller's goroutine,
//     so do not trap it there.
//
// # Goroutines
//
// New starts two goroutines; Close stops both.
//
//   - The loop goroutine owns all state: it drains the Notifier's Events and
//     Errors channels (both, always: an undrained Errors stalls Events),
//     applies Sync requests, and runs the timers. It never calls user code,
//     so it is never blocked by a consumer. Close waits for it, and it
//     closes the Notifier (and so the Notifier's own reader goroutine and
//     file descriptor) before it exits.
//   - The delivery goroutine calls OnChange and OnDegraded, one at a time.
//     Paths reported while a callback runs are merged into the next call, so
//     a slow consumer gets fewer, larger notifications and the watcher's
//     memory stays bounded.
//
// # The OnChange / Close contract
//
// Callbacks run on the delivery goroutine, never concurrently with each other,
// in the order the watcher decided them. A callback may call Sync and Close.
//
// Close marks the watcher closed before anything else. Dispatching a callback
// and marking closed are serialised, so each callback is dispatched either
// before Close takes effect or never, and no callback is dispatched after
// Close returns. Close then stops the loop goroutine and waits for it, which
// releases every watch and the Notifier's file descriptor, and waits for the
// delivery goroutine, with one exception: if a callback was already
// dispatched when Close took effect, Close does not wait for it, because that
// callback may be blocked on the very goroutine that called Close (an actor
// stopping while its OnChange waits for its mailbox, or Close called from
// inside OnChange). Such a callback runs to completion, with the paths it was
// already given, after which the delivery goroutine exits without calling
// anything else. Done is closed when that has happened too. So:
//
//   - after Close returns, nothing new is delivered: at most the one
//     callback already under way when Close was called can still be running,
//     and no other will start;
//   - Close never blocks on a consumer, and returns after at most the time
//     the loop needs to finish the event it is handling;
//   - a caller that needs every callback to have returned, and knows its
//     callback cannot be blocked on the caller, waits for Done after Close.
//
// Close is idempotent; Sync after Close returns ErrClosed.
package watcher
