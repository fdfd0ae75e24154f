package clients_test

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
)

// difference is one way a session through `mcpvisor serve` may differ
// from the same session against the server directly, and why that is
// right. Everything not listed here must be equal, field by field.
type difference struct {
	what, why string
	// normalize rewrites one step of a transcript (direct or through the
	// gateway) so that this difference no longer shows.
	normalize func(step string, entry object, viaGateway bool) object
}

// expectedDifferences is the whole list. Key order is compared under the
// orderedKeys fields only (orderedjson_test.go); the other differences are
// these.
var expectedDifferences = []difference{
	{
		what: "initialize: serverInfo and instructions are the gateway's",
		why: "serve is one MCP server fronting every configured server; it names itself and explains its naming " +
			"(docs/gateway.md), and a server's own instructions would speak for one of many",
		normalize: onResult("initialize", func(r object) object { return r.without("serverInfo").without("instructions") }),
	},
	{
		what: "lists: the order of the catalog's entries",
		why: "the gateway's tools, prompts, resources and templates are the union of every server's, listed in one " +
			"stable order (by name, or URI); the set and each entry are compared",
		normalize: sortLists,
	},
	{
		what: "key order outside schemas and structured content",
		why: "no client shows the order of the protocol's own objects (a tool's fields, a message's), and the go-sdk " +
			"writes them in its structs' order; the order a user sees (a schema's properties, structured content, " +
			"an elicitation form's fields) is compared",
		normalize: func(_ string, e object, _ bool) object { return canonical(e).(object) },
	},
	{
		what: `server requests: _meta["io.mcpvisor/server"] and the elicitation message's [server "NAME"] prefix`,
		why: "the gateway names the server behind every sampling and elicitation request, so that the user knows " +
			"who asks (docs/gateway.md, docs/security.md)",
		normalize: unnameRequester("everything"),
	},
	{
		what: `elicitation/create: "mode": "form"`,
		why:  "form is the mode of an elicitation that names none (2025-11-25); the go-sdk that relays it states it",
		normalize: onServerRequests("elicitation/create", func(p object) object {
			if mode, ok := p.get("mode"); ok && mode == "form" {
				return p.without("mode")
			}
			return p
		}),
	},
	{
		what: "a read of a URI no server lists: the gateway's own not-found",
		why: "no server lists the URI, so the gateway cannot know which to ask and answers itself, in the go-sdk's " +
			"form (the URI in data) with the URI in the message as the server's own message has it; the code " +
			"and the URI the user sees are compared",
		normalize: onErrors("read an unknown resource", notFoundNamingItsURI),
	},
	{
		what: "tasks (2025-11-25): the tasks capability and each tool's execution.taskSupport",
		why: "serve does not relay tasks yet (planned with the rest of MCP 2026-07-28): it advertises no tasks " +
			"capability, and without it a client makes no task-augmented call, so a tool's task hint would change " +
			"nothing; everything else of initialize and tools/list is compared",
		normalize: withoutTasks,
	},
	{
		what: "the clock in server-everything's dynamic resources",
		why:  "it stamps each dynamic text or blob with the time it made it (\"created at 4:07:41 PM\")",
		normalize: func(_ string, e object, _ bool) object {
			return walk(e, unclock).(object)
		},
	},
}

// normalizeStep applies every expected difference to one step.
func normalizeStep(step string, entry object, viaGateway bool) object {
	for _, d := range expectedDifferences {
		entry = d.normalize(step, entry, viaGateway)
	}
	return entry
}

// onResult applies f to the result of step's response.
func onResult(step string, f func(object) object) func(string, object, bool) object {
	return func(s string, e object, _ bool) object {
		if s != step {
			return e
		}
		return mapResponses(e, func(resp object) object {
			if r, ok := resp.get("result"); ok {
				if r, ok := r.(object); ok {
					return resp.with("result", f(r))
				}
			}
			return resp
		})
	}
}

func mapResponses(e object, f func(object) object) object {
	rs, ok := e.get("responses")
	if !ok {
		return e
	}
	arr, _ := rs.([]any)
	out := make([]any, len(arr))
	for i, r := range arr {
		out[i] = r
		if resp, ok := r.(object); ok {
			out[i] = f(resp)
		}
	}
	return e.with("responses", out)
}

// listKeys says, for each list result's array, the field that orders it.
var listKeys = map[string]string{"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate"}

func sortLists(step string, e object, _ bool) object {
	if !strings.HasSuffix(step, "/list") {
		return e
	}
	return onResult(step, func(r object) object {
		for field, by := range listKeys {
			items, ok := r.get(field)
			if !ok {
				continue
			}
			arr := slices.Clone(items.([]any))
			slices.SortStableFunc(arr, func(a, b any) int { return strings.Compare(fieldString(a, by), fieldString(b, by)) })
			r = r.with(field, arr)
		}
		return r
	})(step, e, false)
}

func fieldString(v any, key string) string {
	if o, ok := v.(object); ok {
		if s, ok := o.get(key); ok {
			if s, ok := s.(string); ok {
				return s
			}
		}
	}
	return ""
}

// onServerRequests applies f to the params of every request of method the
// server sent the client during a step.
func onServerRequests(method string, f func(object) object) func(string, object, bool) object {
	return func(_ string, e object, _ bool) object {
		reqs, ok := e.get("serverRequests")
		if !ok {
			return e
		}
		arr := slices.Clone(reqs.([]any))
		for i, r := range arr {
			req, ok := r.(object)
			if !ok {
				continue
			}
			if m, _ := req.get("method"); m != method {
				continue
			}
			if p, ok := req.get("params"); ok {
				if p, ok := p.(object); ok {
					arr[i] = req.with("params", f(p))
				}
			}
		}
		return e.with("serverRequests", arr)
	}
}

// unnameRequester removes, from the gateway's server requests only, the
// exact marks docs/gateway.md says it adds for server: anything else
// (another name, another _meta key) still shows.
func unnameRequester(server string) func(string, object, bool) object {
	prefix := `[server "` + server + `"] `
	strip := func(p object) object {
		if meta, ok := p.get("_meta"); ok {
			if meta, ok := meta.(object); ok {
				if name, ok := meta.get("io.mcpvisor/server"); ok && name == server {
					meta = meta.without("io.mcpvisor/server")
					if len(meta) == 0 {
						p = p.without("_meta")
					} else {
						p = p.with("_meta", meta)
					}
				}
			}
		}
		if msg, ok := p.get("message"); ok {
			if msg, ok := msg.(string); ok && strings.HasPrefix(msg, prefix) {
				p = p.with("message", strings.TrimPrefix(msg, prefix))
			}
		}
		return p
	}
	sampling := onServerRequests("sampling/createMessage", strip)
	elicit := onServerRequests("elicitation/create", strip)
	return func(step string, e object, viaGateway bool) object {
		if !viaGateway {
			return e
		}
		return elicit(step, sampling(step, e, true), true)
	}
}

var clock = regexp.MustCompile(`created at \d{1,2}:\d{2}:\d{2}\s?[AP]M`)

// unclock replaces server-everything's timestamps in strings and in blobs
// (decoded: "base64:" and the text).
func unclock(key string, v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if key == "blob" {
		if raw, err := base64.StdEncoding.DecodeString(s); err == nil {
			return "base64:" + clock.ReplaceAllString(string(raw), "created at TIME")
		}
	}
	return clock.ReplaceAllString(s, "created at TIME")
}

// onErrors applies f to every JSON-RPC error of step's responses, and to
// the error the SDK raised for it.
func onErrors(step string, f func(message string) string) func(string, object, bool) object {
	return func(s string, e object, _ bool) object {
		if s != step {
			return e
		}
		if msg, ok := e.get("sdkError"); ok {
			if msg, ok := msg.(string); ok {
				e = e.with("sdkError", f(msg))
			}
		}
		return mapResponses(e, func(resp object) object {
			errObj, ok := resp.get("error")
			if !ok {
				return resp
			}
			o, ok := errObj.(object)
			if !ok {
				return resp
			}
			if msg, ok := o.get("message"); ok {
				if msg, ok := msg.(string); ok {
					o = o.with("message", f(msg))
				}
			}
			return resp.with("error", o.without("data"))
		})
	}
}

// notFoundNamingItsURI is a not-found message reduced to whether it names
// the URI the step reads.
func notFoundNamingItsURI(msg string) string {
	const uri = "demo://resource/static/document/no-such-file.md"
	if strings.Contains(msg, uri) && strings.Contains(strings.ToLower(msg), "not found") {
		return "not found, naming " + uri
	}
	return msg
}

// withoutTasks removes the tasks capability from initialize and the
// execution hint from each listed tool.
func withoutTasks(step string, e object, viaGateway bool) object {
	switch step {
	case "initialize":
		return onResult(step, func(r object) object {
			if caps, ok := r.get("capabilities"); ok {
				if caps, ok := caps.(object); ok {
					r = r.with("capabilities", caps.without("tasks"))
				}
			}
			return r
		})(step, e, viaGateway)
	case "tools/list":
		return onResult(step, func(r object) object {
			tools, ok := r.get("tools")
			if !ok {
				return r
			}
			arr := slices.Clone(tools.([]any))
			for i, t := range arr {
				if t, ok := t.(object); ok {
					arr[i] = t.without("execution")
				}
			}
			return r.with("tools", arr)
		})(step, e, viaGateway)
	}
	return e
}
