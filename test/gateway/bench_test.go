package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// passThroughEnv, set to the mcpvisor binary, makes the test binary a
// pass-through stdio MCP server: it runs `BIN example-server --prompts
// --resources` as its upstream over stdio and forwards prompts/get of
// greet, resources/read of the readme and tools/call of echo (its
// arguments as they came) to it, as a go-sdk client. It is what one extra
// stdio hop costs, with no supervisor in it.
const passThroughEnv = "MCPVISOR_GATEWAY_TEST_PASSTHROUGH"

const readmeURI = "example://static/readme"

func runPassThrough(bin string) int {
	ctx := context.Background()
	up, err := mcp.NewClient(&mcp.Implementation{Name: "pass-through", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "example-server", "--prompts", "--resources")}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pass-through: connect upstream:", err)
		return 1
	}
	defer up.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "pass-through", Version: "1"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return up.GetPrompt(ctx, req.Params)
		})
	srv.AddResource(&mcp.Resource{URI: readmeURI, Name: "readme"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return up.ReadResource(ctx, req.Params)
		})
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: req.Params.Arguments})
		})
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "pass-through:", err)
		return 1
	}
	return 0
}

// BenchmarkServe_ReadAndGetLatency measures resources/read, prompts/get
// and tools/call (echo) of the example server over stdio three ways, interleaved
// in every round so that the machine's load falls on all three alike:
// directly (a go-sdk client to the server), through one pass-through
// stdio hop (a go-sdk client to a go-sdk server that forwards to it), and
// through `mcpvisor serve`. It reports each path's p50 and p99 and the
// gateway's added latency over the direct call next to the hop's (the
// target: added ≤ hop + 20µs, at p50 and p99).
//
//	go test -run '^$' -bench ReadAndGetLatency -benchtime 3000x ./test/gateway/
func BenchmarkServe_ReadAndGetLatency(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cfg := filepath.Join(b.TempDir(), ".mcp.json")
	testkit.WriteConfig(b, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--prompts", "--resources")})

	hop := exec.Command(self)
	hop.Env = append(os.Environ(), passThroughEnv+"="+bin)
	paths := []struct {
		name         string
		cmd          *exec.Cmd
		prompt, tool string
	}{
		{name: "direct", cmd: exec.Command(bin, "example-server", "--prompts", "--resources"), prompt: "greet", tool: "echo"},
		{name: "hop", cmd: hop, prompt: "greet", tool: "echo"},
		{name: "gateway", cmd: serveCommand("--config", cfg), prompt: "alpha__greet", tool: "alpha__echo"},
	}
	sessions := make([]*mcp.ClientSession, len(paths))
	promptsChanged := make(chan struct{}, 1)
	for i, p := range paths {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
			PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) {
				select {
				case promptsChanged <- struct{}{}:
				default:
				}
			},
		}).Connect(ctx, &mcp.CommandTransport{Command: p.cmd, TerminateDuration: 30 * time.Second}, nil)
		if err != nil {
			b.Fatalf("connect %s: %v", p.name, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	// The gateway lists the prompt once alpha is ready.
	waitPrompt(b, ctx, sessions[2], promptsChanged, "alpha__greet")

	read := func(cs *mcp.ClientSession) error {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: readmeURI})
		return err
	}
	get := func(prompt string) func(*mcp.ClientSession) error {
		return func(cs *mcp.ClientSession) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, Arguments: map[string]string{"name": "Ada"}})
			return err
		}
	}
	call := func(tool string) func(*mcp.ClientSession) error {
		return func(cs *mcp.ClientSession) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hello"}})
			return err
		}
	}
	// Warm up every path (JIT-free, but caches, buffers and goroutines).
	for range 50 {
		for i, p := range paths {
			if err := read(sessions[i]); err != nil {
				b.Fatalf("%s read: %v", p.name, err)
			}
			if err := get(p.prompt)(sessions[i]); err != nil {
				b.Fatalf("%s get: %v", p.name, err)
			}
			if err := call(p.tool)(sessions[i]); err != nil {
				b.Fatalf("%s call: %v", p.name, err)
			}
		}
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for i, p := range paths {
			for _, op := range []struct {
				name string
				do   func(*mcp.ClientSession) error
			}{{"read", read}, {"get", get(p.prompt)}, {"call", call(p.tool)}} {
				start := time.Now()
				if err := op.do(sessions[i]); err != nil {
					b.Fatalf("%s %s: %v", p.name, op.name, err)
				}
				lat[op.name+"/"+p.name] = append(lat[op.name+"/"+p.name], time.Since(start))
			}
		}
	}
	b.StopTimer()
	for _, op := range []string{"read", "get", "call"} {
		for _, q := range []struct {
			name string
			at   float64
		}{{"p50", 0.50}, {"p99", 0.99}} {
			direct := quantile(lat[op+"/direct"], q.at)
			hop := quantile(lat[op+"/hop"], q.at)
			gw := quantile(lat[op+"/gateway"], q.at)
			b.ReportMetric(us(direct), op+"-direct-"+q.name+"-µs")
			b.ReportMetric(us(hop-direct), op+"-hop-added-"+q.name+"-µs")
			b.ReportMetric(us(gw-direct), op+"-gateway-added-"+q.name+"-µs")
		}
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// waitListed waits until list names name, listing again each time changed
// signals (a list_changed of that kind).
func waitListed(b *testing.B, ctx context.Context, changed <-chan struct{}, name string, list func() ([]string, error)) {
	b.Helper()
	for {
		names, err := list()
		if err != nil {
			b.Fatal(err)
		}
		if slices.Contains(names, name) {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			b.Fatalf("the gateway never listed %s", name)
		}
	}
}

// waitPrompt waits until cs lists prompt.
func waitPrompt(b *testing.B, ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}, prompt string) {
	b.Helper()
	waitListed(b, ctx, changed, prompt, func() ([]string, error) {
		res, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		return names, nil
	})
}
