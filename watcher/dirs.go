package watcher

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"go.uber.org/zap"
)

// maxRearmRounds bounds rearm's resolve/arm fixpoint. One round settles
// anything that does not race the watcher; each further round is needed only
// when a directory changed between resolve and Add. A plan still moving after
// this many rounds is treated as a watch that cannot be set up.
const maxRearmRounds = 16

// dirWatch is one watched directory: the entries in it that configured paths
// depend on, and whether the kernel watch is in place.
type dirWatch struct {
	// subscribers maps an entry name to the configured paths that hold an
	// interest in it. Its total size is the reference count: the watch
	// lives while any path needs it, and one watch serves every configured
	// file in the directory.
	subscribers map[string]map[string]struct{}
	refs        int
	// armed is true while a kernel watch is believed to exist: set by a
	// successful Notifier.Add, cleared when the directory is deleted or
	// moved away (the kernel drops the watch then) or on overflow.
	armed bool
}

// dirTable holds every watched directory. Owned by the loop goroutine.
type dirTable struct {
	byDir   map[string]*dirWatch
	unarmed map[string]struct{} // dirs in byDir that need a Notifier.Add
}

func newDirTable() dirTable {
	return dirTable{byDir: map[string]*dirWatch{}, unarmed: map[string]struct{}{}}
}

// acquire records that configured path p depends on entry i.
func (t *dirTable) acquire(i interest, p string) {
	dw := t.byDir[i.dir]
	if dw == nil {
		dw = &dirWatch{subscribers: map[string]map[string]struct{}{}}
		t.byDir[i.dir] = dw
		t.unarmed[i.dir] = struct{}{}
	}
	subs := dw.subscribers[i.name]
	if subs == nil {
		subs = map[string]struct{}{}
		dw.subscribers[i.name] = subs
	}
	if _, ok := subs[p]; !ok {
		subs[p] = struct{}{}
		dw.refs++
	}
}

// release drops p's interest in i. It returns true, and forgets the
// directory, when nobody needs it any more; the caller then removes the
// kernel watch if wasArmed.
func (t *dirTable) release(i interest, p string) (unused, wasArmed bool) {
	dw := t.byDir[i.dir]
	if dw == nil {
		return false, false
	}
	subs := dw.subscribers[i.name]
	if _, ok := subs[p]; !ok {
		return false, false
	}
	delete(subs, p)
	if len(subs) == 0 {
		delete(dw.subscribers, i.name)
	}
	dw.refs--
	if dw.refs > 0 {
		return false, false
	}
	delete(t.byDir, i.dir)
	delete(t.unarmed, i.dir)
	return true, dw.armed
}

// subscribersOf returns the configured paths interested in entry name of
// dir. The map is the table's own: do not mutate the table while ranging.
func (t *dirTable) subscribersOf(dir, name string) map[string]struct{} {
	if dw := t.byDir[dir]; dw != nil {
		return dw.subscribers[name]
	}
	return nil
}

// usersOf returns every configured path with any interest in dir.
func (t *dirTable) usersOf(dir string) []string {
	dw := t.byDir[dir]
	if dw == nil {
		return nil
	}
	var out []string
	for _, subs := range dw.subscribers {
		for p := range subs {
			out = append(out, p)
		}
	}
	return out
}

// disarm marks dir as needing a fresh Add. It reports whether dir is watched.
func (t *dirTable) disarm(dir string) bool {
	dw := t.byDir[dir]
	if dw == nil {
		return false
	}
	dw.armed = false
	t.unarmed[dir] = struct{}{}
	return true
}

// settled reports whether every directory in plan has a kernel watch.
func (t *dirTable) settled(plan []interest) bool {
	for _, i := range plan {
		if _, ok := t.unarmed[i.dir]; ok {
			return false
		}
	}
	return true
}

// rearm brings configured path p's watches in line with the file system:
// resolve, apply the difference, arm new directories, and repeat until a
// resolve finds nothing new. The repeat is what makes late parents safe:
// inotify does not replay entries created before Add, so a level that
// appeared between resolve and Add is only found by resolving again. For
// the same reason every caller rescans p afterwards (marks it dirty, or reads
// its baseline): its file may have been created before the Add.
func (w *Watcher) rearm(p string) {
	tp := w.tracked[p]
	for range maxRearmRounds {
		if tp == nil || w.polling() {
			return
		}
		plan := resolve(p)
		if sameInterests(tp.interests, plan) && w.dirs.settled(plan) {
			return
		}
		w.setInterests(p, tp, plan)
		w.armPending()
	}
	w.degrade(fmt.Sprintf("watch plan for %s did not settle after %d rounds", p, maxRearmRounds))
}

// setInterests moves p from its current interests to plan. New interests are
// acquired before old ones are released, so a directory kept under another
// entry name is never unwatched in between. Directories left without
// subscribers are unwatched at once.
func (w *Watcher) setInterests(p string, tp *trackedPath, plan []interest) {
	for _, i := range plan {
		w.dirs.acquire(i, p)
	}
	for _, i := range tp.interests {
		if containsInterest(plan, i) {
			continue
		}
		if unused, armed := w.dirs.release(i, p); unused && armed {
			w.unwatch(i.dir)
		}
	}
	tp.interests = plan
}

// releaseAll drops every interest of p, as when Sync stops tracking it.
func (w *Watcher) releaseAll(p string, tp *trackedPath) {
	w.setInterests(p, tp, nil)
}

// armPending adds a kernel watch for every directory that needs one. A
// directory that vanished since it was resolved is left unarmed: the next
// resolve moves the interest to its parent. Any other failure (watch or
// instance limit, unsupported file system, permission) degrades the whole
// watcher to polling.
func (w *Watcher) armPending() {
	for dir := range w.dirs.unarmed {
		if w.polling() {
			return // degrade replaced the table; nothing left to arm
		}
		err := w.notifier.Add(dir)
		switch {
		case err == nil:
			w.dirs.byDir[dir].armed = true
			delete(w.dirs.unarmed, dir)
			w.log.Debug("watching directory", zap.String("dir", dir))
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			w.log.Debug("directory vanished before it was watched", zap.String("dir", dir))
		default:
			w.degrade(fmt.Sprintf("watch %s: %v", dir, err))
		}
	}
}

// unwatch removes the kernel watch for dir. Errors are expected when the
// kernel has already dropped the watch (directory deleted or moved) and are
// only logged: an unremoved watch costs nothing but its slot until Close.
func (w *Watcher) unwatch(dir string) {
	if w.notifier == nil {
		return
	}
	if err := w.notifier.Remove(dir); err != nil {
		w.log.Debug("remove watch", zap.String("dir", dir), zap.Error(err))
		return
	}
	w.log.Debug("unwatched directory", zap.String("dir", dir))
}

// retireDir handles an event that says the watched directory dir itself was
// deleted or moved away (its own REMOVE/RENAME, or its parent's event for the
// entry). The kernel drops such a watch, and a directory later created at the
// same path is a new inode that needs its own Add. It returns the configured
// paths that depended on dir, which the caller re-arms and rescans.
func (w *Watcher) retireDir(dir string) []string {
	dw := w.dirs.byDir[dir]
	if dw == nil {
		return nil
	}
	if dw.armed {
		// Remove explicitly: if dir was moved rather than deleted, the
		// kernel keeps watching it at its new name until told otherwise.
		w.unwatch(dir)
	}
	w.dirs.disarm(dir)
	return w.dirs.usersOf(dir)
}

func sameInterests(a, b []interest) bool {
	if len(a) != len(b) {
		return false
	}
	for _, i := range a {
		if !containsInterest(b, i) {
			return false
		}
	}
	return true
}

func containsInterest(plan []interest, i interest) bool {
	for _, have := range plan {
		if have == i {
			return true
		}
	}
	return false
}
