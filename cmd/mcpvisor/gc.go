package main

import (
	"runtime/debug"
)

// mcpvisor's own live heap is small (its catalogs, a few MiB), while every
// MCP message it relays makes garbage in the go-sdk's JSON decoder (tens of
// KiB, mostly buffers): at the runtime's default GOGC=100 the collector
// then runs every few calls and takes about a third of a relayed call's
// CPU time. So, unless the user set GOGC or GOMEMLIMIT, the heap may grow
// to five times its live size between collections (GOGC=400), under a
// soft limit that keeps a large catalog from taking five times its size.
const (
	gcPercent = 400
	gcLimit   = 256 << 20 // bytes
)

// tuneGC applies those settings where the environment leaves them open.
func tuneGC(lookupEnv func(string) (string, bool)) {
	if _, set := lookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := lookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(gcLimit)
	}
}
