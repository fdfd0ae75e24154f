// Package oauth is mcpvisor's OAuth client for remote MCP servers, built
// on the MCP go-sdk's auth and oauthex packages: the token store (one
// 0600 file per server and resource), the session's auth.OAuthHandler
// (stored tokens, refresh on the supervisor's clock and on a 401, the
// client-credentials grant with client_secret_basic, client_secret_post or
// private_key_jwt, and NeedsAuthError when only a person can help; every
// token it obtains goes to Config.Learn, the session's redactor, first),
// Transport (the same OAuth handling in front of the requests of a
// transport without an OAuth hook: HTTP+SSE), the 2025-03-26 revision's
// discovery at the server's origin (legacy.go), and the interactive login
// behind `mcpvisor auth login`: its loopback listener takes only the
// logging-in user's redirect with the login's state (callback.go), and the
// client it registers dynamically is stored and reused (registration.go).
//
// Where credentials may go: a configured client secret or private key
// only to the pinned authorization server, the config's or the first one
// recorded (pin.go; at login also through secret_gate.go); every OAuth
// request of a session through NewClient's dial guard against non-public
// addresses (guard.go); no discovery redirect to another origin.
//
// Goroutines: a Handler and a Transport start none; their methods run on
// the HTTP transport's goroutines and share the Handler's state under a
// mutex. Login serves the loopback redirect on a goroutine of its own,
// which it stops and waits for before it returns.
package oauth
