// Package watcher_test exercises the watcher against the real kernel: real
// fsnotify/inotify on t.TempDir(), the real clock with a short debounce, and
// a bounded test context as the only deadline.
package watcher_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
