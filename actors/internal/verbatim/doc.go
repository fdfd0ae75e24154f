// Package verbatim keeps the bytes of what an upstream server answered,
// so that mcpvisor can pass on free-form JSON (schemas, structured
// content, a prompt argument's explicit "required": false) as the server
// sent it.
//
// The go-sdk's client session decodes every result into typed structs:
// a schema or structured content becomes a map[string]any, whose keys
// encoding/json then writes back sorted, and a bool field tagged
// omitempty forgets whether the server sent false or nothing. Nothing in
// the go-sdk's client API hands back the bytes. So the connection is
// wrapped (Transport): a request sent under a context that carries a Slot
// (Capture) has the result of its response recorded in that Slot before
// the go-sdk sees the response, and the caller reads it back once its
// typed call returns. Where a streamable HTTP connection cannot be wrapped
// (the go-sdk tells it of the session's state through a method no other
// package can implement), its HTTP client's response bodies are: the JSON
// body or the SSE events that answer a POSTed call are read as they go by.
//
// A result that was not captured (one the go-sdk served from its list
// cache, a response delivered on another stream) leaves its Slot empty,
// and callers fall back to the typed value: nothing fails for want of the
// bytes.
//
// A request the server sends the client (an elicitation, whose
// requestedSchema's key order is the order of a form's fields) has no
// caller to capture for: its handler gets typed params with no request
// id. A Transport given a Recent adds the raw params of each such request
// it reads (RequestsKept) to it, from the connection or from any SSE
// stream of a streamable HTTP client, and the handler takes them back by
// content (Take: the kept params whose typed decoding equals its own).
// The gateway keeps its clients' answers the same way (a client's POSTed
// response has no caller either).
//
// Members, Edit and Join read and edit a JSON object's top-level
// members, keeping the order of the rest: the gateway drops what an
// older protocol does not define and swaps in its own values.
//
// # Goroutines
//
// None. The wrappers run on the goroutines that write (the caller's) and
// read (the go-sdk's reader, or its HTTP response handlers); a Slot is
// safe for both.
package verbatim
