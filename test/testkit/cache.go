package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// WithTempCache wraps a package's *testing.M (for goleak.VerifyTestMain,
// or to Run directly) so that the run keeps XDG_CACHE_HOME in a temporary
// directory, removed after it: every Supervisor its tests start with the
// default Options.CacheDir, and every binary they run, keeps its catalog
// cache there rather than in the user's ~/.cache. (Entries are per
// config file, and tests write their configs in t.TempDir(), so tests do
// not see each other's.)
func WithTempCache(m *testing.M) interface{ Run() int } { return tempCache{m} }

type tempCache struct{ m *testing.M }

func (c tempCache) Run() int {
	dir, err := os.MkdirTemp("", "mcpvisor-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := moveCacheHome(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return c.m.Run()
}

// moveCacheHome points XDG_CACHE_HOME at dir, first pinning GOCACHE where
// it is now: the go command keeps its build cache under XDG_CACHE_HOME by
// default, and every go build or go run of the tests (the mcpvisor binary,
// the conformance servers) would otherwise start from an empty one.
func moveCacheHome(dir string) error {
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			if gocache := strings.TrimSpace(string(out)); gocache != "" && gocache != "off" {
				if err := os.Setenv("GOCACHE", gocache); err != nil {
					return err
				}
			}
		}
	}
	return os.Setenv("XDG_CACHE_HOME", dir)
}
