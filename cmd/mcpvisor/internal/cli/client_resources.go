package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// resourcesCommand lists every ready server's resources, then its
// resource templates. --json prints {"resources": [...],
// "resourceTemplates": [...]}.
func resourcesCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("resources", "[--json]", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() > 0 {
		return f.usageError(io.Stderr, "resources takes no arguments (got %q)", f.fs.Args())
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var list httpapi.ResourceList
	var templates httpapi.TemplateList
	if _, err := c.do(ctx, "GET", "/api/v1/resources", nil, &list); err != nil {
		return f.fail(io.Stderr, err)
	}
	if _, err := c.do(ctx, "GET", "/api/v1/resources/templates", nil, &templates); err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		b, _ := json.Marshal(struct {
			httpapi.ResourceList
			httpapi.TemplateList
		}{list, templates})
		fmt.Fprintln(io.Stdout, string(b))
		return ExitOK
	}
	if len(list.Resources)+len(templates.Templates) == 0 {
		fmt.Fprintln(io.Stdout, "no resources: no ready server offers any (see mcpvisor status)")
		return ExitOK
	}
	if len(list.Resources) > 0 {
		rows := [][]string{{"URI", "NAME", "MIME", "SERVER"}}
		for _, r := range list.Resources {
			rows = append(rows, []string{oneLine(r.URI, 80), oneLine(r.Name, 40), r.MIMEType, r.Server})
		}
		writeTable(io.Stdout, "", rows)
	}
	if len(templates.Templates) > 0 {
		if len(list.Resources) > 0 {
			fmt.Fprintln(io.Stdout)
		}
		rows := [][]string{{"TEMPLATE", "NAME", "MIME", "SERVER"}}
		for _, t := range templates.Templates {
			rows = append(rows, []string{oneLine(t.URITemplate, 80), oneLine(t.Name, 40), t.MIMEType, t.Server})
		}
		writeTable(io.Stdout, "", rows)
	}
	return ExitOK
}

// readCommand reads one resource: mcpvisor read URI. Text prints as it
// is, a blob as its size and type (--json for its bytes, in base64).
func readCommand(ctx context.Context, args []string, io IO) int {
	f := newClientFlags("read", "[--json] URI", io)
	if code := f.parse(args); code >= 0 {
		return code
	}
	if f.fs.NArg() != 1 {
		return f.usageError(io.Stderr, "want one URI, e.g. mcpvisor read example://static/readme")
	}
	c, err := f.client(io)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	defer c.close()
	var res httpapi.ReadResult
	raw, err := c.do(ctx, "POST", "/api/v1/resources/read", httpapi.ReadRequest{URI: f.fs.Arg(0)}, &res)
	if err != nil {
		return f.fail(io.Stderr, err)
	}
	if f.asJSON {
		_, _ = io.Stdout.Write(raw)
		return ExitOK
	}
	for _, item := range res.Contents {
		var c struct {
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     string  `json:"blob"`
		}
		switch {
		case json.Unmarshal(item, &c) != nil:
			fmt.Fprintln(io.Stdout, string(item))
		case c.Text != nil:
			fmt.Fprintln(io.Stdout, *c.Text)
		default:
			n := base64.StdEncoding.DecodedLen(len(c.Blob))
			if b, err := base64.StdEncoding.DecodeString(c.Blob); err == nil {
				n = len(b)
			}
			mime := c.MIMEType
			if mime == "" {
				mime = "unknown type"
			}
			fmt.Fprintf(io.Stdout, "(%d bytes of %s; --json shows them)\n", n, mime)
		}
	}
	return ExitOK
}
