// Package httpapitest provides Fleet, a scriptable in-memory stand-in for a
// supervisor behind the HTTP API, for the API's and the CLI's tests. Its
// status, tools, call and resync answers are whatever the test sets; its
// events live in a real journal.Journal, so the API follows them exactly as
// it follows a supervisor's.
//
// Goroutines: each Follow starts the journal feed's goroutine, which
// Feed.Close ends and waits for (the API closes every feed it opens).
// Publish never blocks: followers read from the journal.
package httpapitest
