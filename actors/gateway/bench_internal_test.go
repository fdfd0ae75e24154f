package gateway

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// benchSource is a still fleet for the benchmarks: a catalog and nothing
// else.
type benchSource struct {
	tools     []messages.Tool
	prompts   []messages.Prompt
	resources []messages.Resource
}

func (s *benchSource) Tools() []messages.Tool                         { return s.tools }
func (s *benchSource) Prompts() []messages.Prompt                     { return s.prompts }
func (s *benchSource) Resources() []messages.Resource                 { return s.resources }
func (s *benchSource) ResourceTemplates() []messages.ResourceTemplate { return nil }
func (s *benchSource) Status() messages.Status                        { return messages.Status{} }
func (s *benchSource) CallTool(context.Context, string, any, ...actors.CallOption) (*mcp.CallToolResult, error) {
	return nil, nil
}
func (s *benchSource) GetPrompt(context.Context, string, map[string]string, ...actors.CallOption) (*mcp.GetPromptResult, error) {
	return nil, nil
}
func (s *benchSource) ReadResource(context.Context, string, ...actors.CallOption) (*mcp.ReadResourceResult, error) {
	return nil, nil
}
func (s *benchSource) Complete(context.Context, *mcp.CompleteReference, mcp.CompleteParamsArgument, *mcp.CompleteContext) (*mcp.CompleteResult, error) {
	return nil, nil
}
func (s *benchSource) SubscribeResource(context.Context, string) error { return nil }
func (s *benchSource) UnsubscribeResource(string)                      {}

// The catalog of issue 13's performance target: 50 servers, each with 100
// tools, 100 prompts and 1,000 resources, each item with its Hash as the
// fleet sets it.
const benchServers, benchTools, benchPrompts, benchResources = 50, 100, 100, 1000

func benchCatalog() *benchSource {
	src := &benchSource{}
	for s := range benchServers {
		server := fmt.Sprintf("server%02d", s)
		src.tools = append(src.tools, serverTools(server, "")...)
		for p := range benchPrompts {
			src.prompts = append(src.prompts, messages.Prompt{Server: server, Prefix: server, Name: fmt.Sprintf("prompt%03d", p), Description: "A prompt.", Hash: fmt.Sprintf("p%d", p),
				Arguments: []messages.PromptArgument{{Name: "topic", Required: true}}})
		}
		src.resources = append(src.resources, serverResources(server, "")...)
	}
	return src
}

func serverTools(server, suffix string) []messages.Tool {
	var out []messages.Tool
	for t := range benchTools {
		out = append(out, messages.Tool{Server: server, Prefix: server, Name: fmt.Sprintf("tool%03d", t), Description: "A tool." + suffix, Hash: fmt.Sprintf("t%d%s", t, suffix),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}})
	}
	return out
}

func serverResources(server, suffix string) []messages.Resource {
	var out []messages.Resource
	for r := range benchResources {
		out = append(out, messages.Resource{Server: server, URI: fmt.Sprintf("test://%s/item/%04d", server, r), Name: fmt.Sprintf("item%04d", r),
			Description: "An item." + suffix, MIMEType: "text/plain", Hash: fmt.Sprintf("r%d%s", r, suffix)})
	}
	return out
}

// BenchmarkGateway_LoadCatalog builds the gateway's view of the whole
// catalog from scratch (what Run does first): 50 × (100 tools, 100
// prompts, 1,000 resources). Target: under 50 ms.
func BenchmarkGateway_LoadCatalog(b *testing.B) {
	src := benchCatalog()
	b.ReportAllocs()
	defer actorstest.CPUPerOp(b)()
	for b.Loop() {
		g := New(src, zap.NewNop())
		g.load()
	}
}

// BenchmarkGateway_ApplyOneServerChange applies one server's list_changed
// (one of 50, its 1,000 resources re-listed with one changed) to a
// gateway holding the whole catalog. Target: under 2 ms, whatever the
// fleet's size.
func BenchmarkGateway_ApplyOneServerChange(b *testing.B) {
	g := New(benchCatalog(), zap.NewNop())
	g.load()
	before, after := serverResources("server07", ""), serverResources("server07", "")
	after[500].Description, after[500].Hash = "A changed item.", "changed"
	b.ReportAllocs()
	defer actorstest.CPUPerOp(b)()
	i := 0
	for b.Loop() {
		if i++; i%2 == 0 {
			g.applyResources("server07", before)
		} else {
			g.applyResources("server07", after)
		}
	}
}
