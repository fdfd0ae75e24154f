// Package mcptrace holds what mcpvisor's two traced sides share: the
// session actors' client spans (package actors) and the gateway's server
// spans (package actors/gateway). It names the span attributes after the
// OpenTelemetry semantic conventions for MCP (Development status), reads
// and writes the W3C trace context in a request's params._meta, as those
// conventions and the MCP community's tracing proposal carry it, and
// records a request's outcome on its span.
//
// It uses the OpenTelemetry API only (never the SDK), starts no
// goroutine and keeps no state.
//
// What a span may carry is deliberately narrow: the method, a tool's or
// prompt's name, a resource URI's scheme (never the URI, which may hold
// credentials or private paths), the negotiated protocol version and the
// outcome. Never arguments, results, environment values, headers, tokens
// or session ids (a streamable HTTP session id lets whoever holds it speak
// in that session).
package mcptrace
