package cli_test

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
	"github.com/mcpvisor/mcpvisor/messages"
)

func catalogFleet() *httpapitest.Fleet {
	f := &httpapitest.Fleet{
		GetPromptFunc: func(_ context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
			if name != "alpha__greet" {
				return nil, fmt.Errorf("%w: %q", actors.ErrUnknownPrompt, name)
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + args["name"] + "."}},
				{Role: "assistant", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}}},
			}}, nil
		},
		ReadFunc: func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
			switch uri {
			case "example://static/readme":
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "read me"}}}, nil
			case "example://static/blob":
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/octet-stream", Blob: make([]byte, 16)}}}, nil
			}
			return nil, fmt.Errorf("%w: %q", actors.ErrUnknownResource, uri)
		},
	}
	f.SetCatalog(
		[]messages.Prompt{{Server: "alpha", Prefix: "alpha", Name: "greet", Description: "Greets someone.", Arguments: []messages.PromptArgument{{Name: "name", Required: true}, {Name: "language"}}}},
		[]messages.Resource{{Server: "alpha", URI: "example://static/readme", Name: "readme", MIMEType: "text/plain"}},
		[]messages.ResourceTemplate{{Server: "alpha", URITemplate: "example://items/{id}", Name: "item", MIMEType: "application/json"}},
	)
	return f
}

func TestPrompts_ListsNamesAndArguments(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, catalogFleet(), "")
	mcpvisor(ctx, env, "", "prompts").want(t, cli.ExitOK, "NAME          ARGUMENTS       DESCRIPTION\nalpha__greet  name*,language  Greets someone.\n", "")
	mcpvisor(ctx, env, "", "prompts", "--json").want(t, cli.ExitOK, `{"prompts":[{"name":"alpha__greet"`, "")
	mcpvisor(ctx, daemon(t, &httpapitest.Fleet{}, ""), "", "prompts").want(t, cli.ExitOK, "no prompts", "")
}

func TestPrompt_OutputAndExitCodes(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, catalogFleet(), "")
	mcpvisor(ctx, env, "", "prompt", "alpha__greet", `{"name": "Ada"}`).want(t, cli.ExitOK, "user: Say hello to Ada.\nassistant: {\"type\":\"image\"", "")
	mcpvisor(ctx, env, `{"name": "Bo"}`, "prompt", "alpha__greet", "-").want(t, cli.ExitOK, "Say hello to Bo.", "")
	mcpvisor(ctx, env, "", "prompt", "--json", "alpha__greet").want(t, cli.ExitOK, `{"messages":[{"content":{"type":"text"`, "")
	mcpvisor(ctx, env, "", "prompt", "alpha__nope").want(t, cli.ExitFailed, "", `mcpvisor prompt: prompt not exposed: "alpha__nope"`)
	mcpvisor(ctx, env, "", "prompt").want(t, cli.ExitUsage, "", "want a prompt name")
	mcpvisor(ctx, env, "", "prompt", "alpha__greet", `{"name": 1}`).want(t, cli.ExitUsage, "", "prompt arguments are strings")
}

func TestResources_ListsResourcesAndTemplates(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, catalogFleet(), "")
	mcpvisor(ctx, env, "", "resources").want(t, cli.ExitOK,
		"URI                      NAME    MIME        SERVER\nexample://static/readme  readme  text/plain  alpha\n\n"+
			"TEMPLATE              NAME  MIME              SERVER\nexample://items/{id}  item  application/json  alpha\n", "")
	mcpvisor(ctx, env, "", "resources", "--json").want(t, cli.ExitOK, `"resourceTemplates":[{"server":"alpha","uriTemplate":"example://items/{id}"`, "")
	mcpvisor(ctx, daemon(t, &httpapitest.Fleet{}, ""), "", "resources").want(t, cli.ExitOK, "no resources", "")
}

func TestRead_OutputAndExitCodes(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	env := daemon(t, catalogFleet(), "")
	mcpvisor(ctx, env, "", "read", "example://static/readme").want(t, cli.ExitOK, "read me\n", "")
	mcpvisor(ctx, env, "", "read", "example://static/blob").want(t, cli.ExitOK, "(16 bytes of application/octet-stream; --json shows them)\n", "")
	mcpvisor(ctx, env, "", "read", "--json", "example://static/blob").want(t, cli.ExitOK, `"blob":"AAAAAAAAAAAAAAAAAAAAAA=="`, "")
	mcpvisor(ctx, env, "", "read", "nowhere://x").want(t, cli.ExitFailed, "", `mcpvisor read: resource not exposed: "nowhere://x"`)
	mcpvisor(ctx, env, "", "read").want(t, cli.ExitUsage, "", "want one URI")
}

// The status table shows the rest of the catalog beside the tool count,
// only for servers that have any.
func TestStatus_ShowsCatalogCounts(t *testing.T) {
	t.Parallel()
	f := &httpapitest.Fleet{}
	f.SetStatus(messages.Status{Servers: []messages.ServerStatus{
		{Name: "alpha", Prefix: "alpha", Transport: messages.TransportStdio, State: messages.StateReady, Tools: 7, Prompts: 2, Resources: 3, Templates: 1},
		{Name: "beta", Prefix: "beta", Transport: messages.TransportStdio, State: messages.StateReady, Tools: 4},
	}})
	r := mcpvisor(actorstest.Context(t), daemon(t, f, ""), "", "status")
	r.want(t, cli.ExitOK, "7 +2p 3r 1t", "")
	if !regexp.MustCompile(`(?m)^beta +beta +stdio +ready +4 +0`).MatchString(r.stdout) {
		t.Fatalf("beta's row without a catalog:\n%s", r.stdout)
	}
}

// events prints the catalog's events, a long diff cut to ten keys.
func TestEvents_PrintsCatalogEvents(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	fleet := &httpapitest.Fleet{}
	var uris []string
	for i := range 12 {
		uris = append(uris, fmt.Sprintf("x://%02d", i))
	}
	fleet.Publish(&messages.PromptsChanged{Server: "alpha", Prompts: make([]messages.Prompt, 2), Added: []string{"greet"}, Changed: []string{"status"}})
	fleet.Publish(&messages.ResourcesChanged{Server: "alpha", Resources: make([]messages.Resource, 12), Added: uris})
	fleet.Publish(&messages.ResourceTemplatesChanged{Server: "alpha", Removed: []string{"x://{id}"}})
	fleet.Publish(&messages.ResourceUpdated{Server: "alpha", URI: "x://00"})
	fleet.Publish(&messages.CatalogConflict{Kind: messages.KindResources, Key: "x://00", Count: 3, Winner: "alpha", Loser: "beta"})
	fleet.Publish(&messages.CatalogItemSkipped{Server: "beta", Kind: messages.KindPrompts, Key: "huge", Reason: "description of 70000 bytes, more than 65536"})
	env := daemon(t, fleet, "")
	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(runCtx, []string{"events", "--since", "0"}, cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	for _, want := range []string{
		"alpha       prompts: 2  +greet  ~status",
		"alpha       resources: 12  +x://00 +x://01 +x://02 +x://03 +x://04 +x://05 +x://06 +x://07 +x://08 +x://09 (and 2 more)",
		"alpha       resource templates: 0  -x://{id}",
		"alpha       updated: x://00",
		"beta        warning: 3 resources also claimed by alpha, which comes first in config order (x://00)",
		"beta        warning: prompts huge not exposed: description of 70000 bytes, more than 65536",
	} {
		if line := stdout.next(ctx, t); !strings.HasSuffix(line, want) {
			t.Fatalf("line %q, want it to end with %q", line, want)
		}
	}
	interrupt()
	if code := <-done; code != cli.ExitOK {
		t.Fatalf("exit %d after an interrupt, want 0", code)
	}
}
