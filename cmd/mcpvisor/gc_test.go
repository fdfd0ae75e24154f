package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The collector's settings are mcpvisor's only where the environment
// leaves them unset.
func TestTuneGC_EnvironmentWins(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	for _, c := range []struct {
		name        string
		vars        map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{"unset", nil, gcPercent, gcLimit},
		{"GOGC set", map[string]string{"GOGC": "100"}, 100, gcLimit},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, gcPercent, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		tuneGC(env(c.vars))
		if got := debug.SetGCPercent(100); got != c.wantPercent {
			t.Errorf("%s: GC percent %d, want %d", c.name, got, c.wantPercent)
		}
		if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
			t.Errorf("%s: memory limit %d, want %d", c.name, got, c.wantLimit)
		}
	}
}
