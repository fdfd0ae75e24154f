// Package cli implements the mcpvisor command: flag parsing, logger and
// clock wiring, human-readable output, exit codes. main only hands it the
// process's arguments, streams and signals.
//
// Goroutines: Main runs on the caller's goroutine. `run` starts a
// Supervisor (see package actors), one goroutine printing its events and
// the HTTP API (httpapi.Server.Serve on its own goroutine); it stops the
// API first, then the Supervisor and the printer, before returning. Both
// also end, exit status 1, when the Supervisor fails (Supervisor.Done).
// `serve` starts a Supervisor, one goroutine feeding its events to the
// gateway, and the gateway's transport, and stops all of them before
// returning. Client commands (status, tools, call, resync, events), check,
// trust and auth run on the caller's goroutine; `auth login` also serves
// the OAuth redirect on a loopback listener (actors/oauth.Login, which
// stops it before returning) and runs $BROWSER to the end, on a private
// page that redirects to the authorization URL (auth_browser.go), never
// on the URL.
//
// Tokens (token.go): `run` and `serve --transport http` take the token from
// --token-file, else $MCPVISOR_TOKEN, else $XDG_STATE_HOME/mcpvisor/token
// (~/.local/state/mcpvisor/token), which they rewrite at each start
// unless another live daemon holds its lock (token_rotate.go); the
// clients look in the same places in the same order, so the daemon's user
// needs no flag. A token file its group or others may read, and a token
// shorter than 32 bytes, are refused.
//
// Who the clients talk to (client_dial.go): before any byte is sent, the
// Unix socket `run` serves on the default address (api_socket.go) must be
// in a directory of the user's alone with the user or root at the other
// end, and a TCP listener must be the user's or root's (/proc/net/tcp).
// The token goes to the Supervisor as a secret to redact, and never into a
// server's environment.
package cli
