// Package oauth is mcpvisor's OAuth client for remote MCP servers, built
// on the MCP go-sdk's auth and oauthex packages: the token store (one
// 0600 file per server and resource), the session's auth.OAuthHandler
// (stored tokens, refresh on the supervisor's clock and on a 401, the
// client-credentials grant with client_secret_basic, client_secret_post or
// private_key_jwt, and NeedsAuthError when only a person can help), and
// the interactive login behind `mcpvisor auth login`.
//
// Goroutines: a Handler starts none; its methods run on the HTTP
// transport's goroutines and share its state under a mutex. Login serves
// the loopback redirect on a goroutine of its own, which it stops and
// waits for before it returns.
package oauth
