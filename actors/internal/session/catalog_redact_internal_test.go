package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// What catalog redaction keeps and what it redacts, as docs/security.md
// says: the names of tools, prompts and prompt arguments, resource URIs
// and URI templates are kept (they are how an item is called or read); a
// resource's or template's name, like every title, description, schema,
// annotation and MIME type, is display text and is redacted, and the
// item's hash is taken again.
func TestRedactCatalog_KeepsWhatCallsAnItem(t *testing.T) {
	t.Parallel()
	const secret = "PLANTED-SECRET-41b7c0"
	r := redact.New(secret)
	in := Catalog{
		Tools:     []messages.Tool{{Name: "t-" + secret, Description: secret, Hash: "old"}},
		Prompts:   []messages.Prompt{{Name: "p-" + secret, Title: secret, Arguments: []messages.PromptArgument{{Name: "a-" + secret, Description: secret}}, Hash: "old"}},
		Resources: []messages.Resource{{URI: "https://h/r?key=" + secret, Name: "r-" + secret, Hash: "old"}},
		Templates: []messages.ResourceTemplate{{URITemplate: "https://h/{id}?key=" + secret, Name: "tp-" + secret, Hash: "old"}},
	}
	out := redactCatalog(in, r)
	kept := []string{out.Tools[0].Name, out.Prompts[0].Name, out.Prompts[0].Arguments[0].Name, out.Resources[0].URI, out.Templates[0].URITemplate}
	for _, k := range kept {
		if !strings.Contains(k, secret) {
			t.Errorf("%q was redacted; names of calls and URIs are kept", k)
		}
	}
	redacted := []string{out.Tools[0].Description, out.Prompts[0].Title, out.Prompts[0].Arguments[0].Description, out.Resources[0].Name, out.Templates[0].Name}
	for _, d := range redacted {
		if strings.Contains(d, secret) || !strings.Contains(d, redact.Mark) {
			t.Errorf("%q still shows the secret", d)
		}
	}
	for _, h := range []string{out.Tools[0].Hash, out.Prompts[0].Hash, out.Resources[0].Hash, out.Templates[0].Hash} {
		if h == "old" {
			t.Error("a redacted item kept its hash")
		}
	}
}

// A schema kept as the server's bytes (so its key order reaches clients)
// is redacted like a decoded one, and stays bytes, in its order: the
// verbatim path never bypasses redaction.
func TestRedactCatalog_RedactsSchemaBytes(t *testing.T) {
	t.Parallel()
	const secret = "PLANTED-SECRET-41b7c0"
	r := redact.New(secret)
	in := Catalog{Tools: []messages.Tool{{Name: "t",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string","default":"` + secret + `"},"alpha":{"type":"number"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","description":"` + secret + `","properties":{"z":{},"a":{}}}`),
		Hash:         "old"}}}
	out := redactCatalog(in, r).Tools[0]
	for _, c := range []struct {
		field string
		got   any
		want  string
	}{
		{"inputSchema", out.InputSchema, `{"type":"object","properties":{"zeta":{"type":"string","default":"` + redact.Mark + `"},"alpha":{"type":"number"}}}`},
		{"outputSchema", out.OutputSchema, `{"type":"object","description":"` + redact.Mark + `","properties":{"z":{},"a":{}}}`},
	} {
		raw, ok := c.got.(json.RawMessage)
		if !ok || string(raw) != c.want {
			t.Errorf("%s redacted to %T %v, want the bytes %s", c.field, c.got, c.got, c.want)
		}
	}
	if out.Hash == "old" {
		t.Error("a redacted tool kept its hash")
	}
}
