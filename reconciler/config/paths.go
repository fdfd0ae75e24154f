package config

import (
	"path/filepath"
)

// ResolvePaths turns the configured list of config files into the absolute,
// clean, duplicate-free list the config actor reads, keeping the order
// (which is the precedence order).
//
// A leading "~" alone or followed by a separator becomes home ("~user" is not
// expanded; it is an ordinary relative name). A relative path is joined to
// workdir. Empty entries are dropped, as a stray separator in an environment
// variable list would produce them. When a path appears twice, the first
// occurrence keeps its place. Symlinks are not followed: two names for one
// file are two entries, and the first to declare a server wins as usual.
func ResolvePaths(paths []string, workdir, home string) []string {
	out := make([]string, 0, len(paths))
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		if n := tildeLen(p); n > 0 && home != "" {
			p = filepath.Join(home, p[n:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(workdir, p)
		}
		p = filepath.Clean(p)
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// tildeLen reports how many leading bytes of p stand for the home directory:
// 1 for "~" alone or "~/…" (or "~\…" where that is the separator), 0 when p
// does not start with a home reference.
func tildeLen(p string) int {
	if p == "" || p[0] != '~' {
		return 0
	}
	if len(p) == 1 || p[1] == '/' || p[1] == filepath.Separator {
		return 1
	}
	return 0
}
