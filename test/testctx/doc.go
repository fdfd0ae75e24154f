// Package testctx is the bounded test context, the only deadline a test
// needs, for the whole module. Package actorstest exports it
// (actorstest.Context); the internal tests of packages that actorstest
// imports (actors and below, watcher), which cannot import it, use it
// from here.
//
// Goroutines: none (the context's own timer is the runtime's).
package testctx
