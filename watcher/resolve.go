package watcher

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// interest names one directory entry whose changes may change what a
// configured path reads. Watching dir and filtering on name is how the
// watcher sees an entry being created, written, renamed over or removed:
// watching a file itself loses the watch on the first atomic save.
type interest struct {
	dir  string // absolute and symlink-free, so it names exactly one inode
	name string // a single path component
}

// maxSymlinkHops matches the kernel's MAXSYMLINKS: past it, open(2) fails
// with ELOOP, so the path cannot resolve and there is nothing further to watch.
const maxSymlinkHops = 40

// resolve walks the absolute path p one component at a time, as the kernel
// does, and returns the entries that decide what p reads:
//
//   - the final entry, in its real parent directory;
//   - every symlink met on the way, in its real parent directory, including
//     symlinks reached through other symlinks' targets. This is what makes a
//     retargeted link (the Kubernetes ConfigMap "..data" swap) a change;
//   - the first component that is missing, or that is a non-directory where a
//     directory is needed, in its nearest existing ancestor. The walk stops
//     there: deeper levels are armed when this one appears.
//
// Existing intermediate directories that are not symlinks get no interest of
// their own. Their removal is seen as a self event of the watched parent
// directory (see Watcher.retireDir); a rename of a plain directory above the
// parent is not seen (documented in doc.go).
//
// Every dir in the result is symlink-free, because the walk only ever
// descends into directories it has Lstat-ed, and follows links itself. That
// matters: inotify resolves symlinks when a watch is added, and fsnotify keys
// watches by the path given, so two spellings of one directory would collide.
//
// The result is deduplicated, in walk order. It is empty only for a path that
// names no entry (such as one ending in ".."), which never exists as a file.
func resolve(p string) []interest {
	var out []interest
	add := func(i interest) {
		for _, have := range out {
			if have == i {
				return
			}
		}
		out = append(out, i)
	}

	todo := components(p)
	cur := "/"
	hops := 0
	for len(todo) > 0 {
		comp := todo[0]
		todo = todo[1:]
		if comp == ".." {
			// cur is symlink-free, so the lexical parent is the real parent.
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, comp)
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
			// Missing (or unsearchable): wait for it to appear in cur.
			add(interest{cur, comp})
			return out
		case fi.Mode()&fs.ModeSymlink != 0:
			add(interest{cur, comp})
			hops++
			if hops > maxSymlinkHops {
				return out
			}
			target, err := os.Readlink(next)
			if err != nil {
				// Replaced between Lstat and Readlink; the interest above
				// sees the change and the next resolve starts over.
				return out
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			// A relative target is relative to the link's directory, cur.
			todo = append(components(target), todo...)
		case len(todo) == 0:
			add(interest{cur, comp})
			return out
		case !fi.IsDir():
			// A file where a directory is needed: p resolves only once
			// this entry is replaced by a directory.
			add(interest{cur, comp})
			return out
		default:
			cur = next
		}
	}
	return out
}

// components splits a path into the components the kernel walks, dropping the
// empty and "." ones. ".." is kept: it must be applied after symlinks before
// it are followed, so the path is deliberately not cleaned lexically.
func components(p string) []string {
	parts := strings.Split(p, "/")
	out := parts[:0]
	for _, c := range parts {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
