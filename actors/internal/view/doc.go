// Package view is the read side of the fleet: an immutable Snapshot of
// every server's row (its status, its exposed catalog with indexes, and
// the session that takes its requests), which the fleet actor replaces
// after every change (Snapshot.Next rebuilds only the rows that changed)
// and readers Load without blocking. It routes: an exposed tool or prompt
// name to its server (by prefix, else to a server that exposes items by
// their own names, first in config order), a URI to the server that owns
// it (a resource of that URI, else the first template that matches it).
//
// View is generic over what a row routes requests to (S, the session
// actor's handle), so that it needs nothing of the session package.
//
// # Goroutines
//
// None. A View is written by the fleet actor alone and read from any
// goroutine; a Snapshot and its rows never change once stored (a
// template's compiled matcher is built once, on first use, under a
// sync.Once).
package view
