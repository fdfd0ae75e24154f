//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what these tests advertise.

package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
)

func TestParseClientCapabilities(t *testing.T) {
	t.Parallel()
	for list, want := range map[string]string{
		"":                "",
		"none":            "",
		"sampling, roots": "sampling roots",
		"elicitation":     "elicitation(form)",
		"elicitation-url": "elicitation(url)",
		"sampling,elicitation,elicitation-url,roots": "sampling elicitation(form url) roots",
	} {
		caps, err := gateway.ParseClientCapabilities(list)
		if err != nil {
			t.Errorf("%q: %v", list, err)
			continue
		}
		if got := modesOf(caps); got != want {
			t.Errorf("%q: %q, want %q", list, got, want)
		}
	}
	if _, err := gateway.ParseClientCapabilities("sampling,tasks"); err == nil || !strings.Contains(err.Error(), `"tasks"`) {
		t.Errorf("an unknown name: %v, want an error naming it", err)
	}
}

// modesOf names the client capabilities a server is told, elicitation
// with its modes.
func modesOf(c *mcp.ClientCapabilities) string {
	var have []string
	if c.Sampling != nil {
		have = append(have, "sampling")
	}
	if e := c.Elicitation; e != nil {
		var modes []string
		if e.Form != nil {
			modes = append(modes, "form")
		}
		if e.URL != nil {
			modes = append(modes, "url")
		}
		have = append(have, "elicitation("+strings.Join(modes, " ")+")")
	}
	if c.RootsV2 != nil || c.Roots.ListChanged {
		have = append(have, "roots")
	}
	return strings.Join(have, " ")
}

// modesServer is capsServer, reporting elicitation's modes too.
func modesServer(told chan<- string) func() *mcp.Server {
	return func() *mcp.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1"}, &mcp.ServerOptions{
			SupportedProtocolVersions: []string{"2025-11-25"},
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				told <- modesOf(req.Session.InitializeParams().Capabilities)
			},
		})
		srv.AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		})
		return srv
	}
}

// A server that connects before any client is told the relay's Default:
// nothing unless set (it was everything), so what it lists does not
// depend on which client comes first. One that connects with a client
// there is told what the client has, url-mode elicitation included (it
// was never told of url mode).
func TestRelay_ServerBeforeAnyClientIsToldTheDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		relay   *gateway.Relay
		initial string
	}{
		{"no default", &gateway.Relay{}, ""},
		{"a default", &gateway.Relay{Default: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}}, "elicitation(url)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			told := make(chan string, 8)
			r := startRelayRigOver(t, ctx, nil, dialServer(modesServer(told)), tc.relay)
			got := []string{received(t, ctx, told)}

			r.connect(ctx, "2025-11-25", &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			}, "demo__noop")
			r.writeConfig(map[string]any{"env": map[string]any{"GEN": "2"}}) // a restart: it connects again
			if _, _, err := r.sup.Resync(ctx, false); err != nil {
				t.Fatal(err)
			}
			got = append(got, received(t, ctx, told))
			if diff := cmp.Diff([]string{tc.initial, "elicitation(form url)"}, got); diff != "" {
				t.Errorf("what the server's sessions were told (-want +got):\n%s", diff)
			}
		})
	}
}

// urlServer's tool "login" asks its client for a url-mode elicitation
// and answers with what came back: the action, or the error's code.
func urlServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "url", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	srv.AddTool(&mcp.Tool{Name: "login", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "url", URL: "https://example.com/login", ElicitationID: "e-1", Message: "sign in"})
		text := ""
		var wire *jsonrpc.Error
		switch {
		case errors.As(err, &wire):
			text = fmt.Sprintf("code %d", wire.Code)
		case err != nil:
			text = "error without a code: " + err.Error()
		default:
			text = res.Action
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	return srv
}

// A url-mode elicitation goes to a client that has url mode; one that
// elicits in form mode only is never asked it, and the server gets
// -32601, as from a client without the capability.
func TestRelay_URLElicitationOnlyToAClientWithURLMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		caps *mcp.ElicitationCapabilities
		want string
	}{
		{"url mode", &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}, "accept"},
		{"form mode only", &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, "code -32601"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			r := startRelayRigOver(t, ctx, nil, dialServer(urlServer), &gateway.Relay{Default: &mcp.ClientCapabilities{
				Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}},
			}})
			cs := r.connect(ctx, "2025-11-25", &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{Elicitation: tc.caps},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if req.Params.Mode != "url" || req.Params.URL != "https://example.com/login" || req.Params.ElicitationID != "e-1" {
						return nil, fmt.Errorf("asked %+v, not the server's url elicitation", req.Params)
					}
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			}, "demo__login")
			if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__login"}); got != tc.want {
				t.Errorf("the server got %q, want %q", got, tc.want)
			}
		})
	}
}
