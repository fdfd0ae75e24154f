// Package testhook lets package actorstest reach a Supervisor's actor
// tree, so that tests can inject messages and wait on mailboxes while the
// Supervisor's own API names nothing of protoactor. Package actors sets
// Tree in its init; nothing else should use it.
//
// Goroutines: none.
package testhook
