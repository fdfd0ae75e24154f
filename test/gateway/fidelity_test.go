package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// rawServerEnv re-executes the test binary as rawServer; rawHangEnv
// names a file whose existence makes it answer nothing.
const (
	rawServerEnv = "MCPVISOR_TEST_RAW_SERVER"
	rawHangEnv   = "MCPVISOR_TEST_RAW_HANG"
)

// rawAnswers are rawServer's results, byte for byte as a server may write
// them: keys out of alphabetical order, explicit falses, and fields only
// protocol 2026-07-28 defines (resultType, ttlMs, cacheScope), which a
// server may send whatever the session negotiated.
var rawAnswers = map[string]string{
	"tools/list": `{"tools":[{"name":"order","description":"keeps order",` +
		`"inputSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"},"mid":{"type":"boolean"}},"required":["zeta"]},` +
		`"outputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}],"ttlMs":60000,"cacheScope":"private"}`,
	"prompts/list":        `{"prompts":[{"name":"ask","arguments":[{"name":"topic","required":true},{"name":"tone","required":false},{"name":"extra"}]}]}`,
	"tools/call":          `{"content":[{"type":"text","text":"done"}],"structuredContent":{"z":"last","a":"first","m":{"y":1,"b":2}},"isError":false,"resultType":"complete"}`,
	"prompts/get":         `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"resultType":"complete"}`,
	"completion/complete": `{"completion":{"values":["calm"],"total":1,"hasMore":false},"resultType":"complete"}`,
	"ping":                `{}`,
}

// rawServer is an MCP server that writes its results as rawAnswers has
// them (a go-sdk server cannot: it encodes typed values), on the legacy
// handshake.
func rawServer() int {
	if hang := os.Getenv(rawHangEnv); hang != "" {
		if _, err := os.Stat(hang); err == nil {
			_, _ = io.Copy(io.Discard, os.Stdin) // never answers: stays starting
			return 0
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil || req.Method == "" {
			continue // a notification, or a response
		}
		result, ok := rawAnswers[req.Method]
		if req.Method == "initialize" {
			result, ok = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{},"prompts":{},"completions":{}},"serverInfo":{"name":"raw","version":"1"}}`, req.Params.ProtocolVersion), true
		}
		if ok {
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		} else {
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
		}
	}
	return 0
}

// rawClient speaks JSON-RPC to `mcpvisor serve` over its stdio and hands
// back the bytes of each response, as a client reads them: nothing
// decodes and re-encodes them on the way.
type rawClient struct {
	t     *testing.T
	stdin io.Writer
	lines chan string
	next  int
	stop  func() // ends serve (end of input) and waits for it
}

func startRawClient(t *testing.T, args ...string) *rawClient {
	t.Helper()
	cmd := serveCommand(args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	c := &rawClient{t: t, stdin: stdin, lines: lines}
	c.stop = sync.OnceFunc(func() {
		_ = stdin.Close() // end of input: serve stops
		for range lines {
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr.String())
		}
	})
	t.Cleanup(c.stop)
	return c
}

// call sends a request and returns the raw result of its response.
func (c *rawClient) call(ctx context.Context, method, params string) string {
	c.t.Helper()
	c.next++
	id := c.next
	fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("%s: serve closed its output", method)
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification, or a request to the client
			}
			if resp.Error != nil {
				c.t.Fatalf("%s: error %s", method, resp.Error)
			}
			return string(resp.Result)
		case <-ctx.Done():
			c.t.Fatalf("%s: no response: %v", method, ctx.Err())
		}
	}
}

func (c *rawClient) notify(method string) {
	fmt.Fprintf(c.stdin, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
}

// rawSession is a raw client of a gateway in front of rawServer, past
// the handshake on protocol 2025-11-25.
func rawSession(t *testing.T, ctx context.Context, args ...string) *rawClient {
	t.Helper()
	if len(args) == 0 {
		args = []string{"--config", rawConfig(t, "")}
	}
	c := startRawClient(t, args...)
	init := c.call(ctx, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"1"}}`)
	if !strings.Contains(init, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s, want protocol 2025-11-25", init)
	}
	c.notify("notifications/initialized")
	return c
}

// rawConfig is a config file serving rawServer as "raw"; hang, if not
// empty, is rawHangEnv's file.
func rawConfig(t *testing.T, hang string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{rawServerEnv: "1"}
	if hang != "" {
		env[rawHangEnv] = hang
	}
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"raw": {Command: self, Env: env}})
	return cfg
}

// The bytes a client reads keep the upstream's key order in a tool's
// schemas and in structured content, where a re-encoding of decoded maps
// sorts them (and a client shows the arguments in that order).
func TestServe_KeyOrderAsTheServerSentIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	c := rawSession(t, ctx)

	list := c.call(ctx, "tools/list", `{}`)
	for _, want := range []string{
		`"properties":{"zeta":{"type":"string"},"alpha":{"type":"number"},"mid":{"type":"boolean"}}`,
		`"outputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`,
	} {
		if !strings.Contains(list, want) {
			t.Errorf("tools/list: %s\nwant it to hold, as the server sent it: %s", list, want)
		}
	}
	res := c.call(ctx, "tools/call", `{"name":"raw__order","arguments":{"zeta":"x"}}`)
	if want := `"structuredContent":{"z":"last","a":"first","m":{"y":1,"b":2}}`; !strings.Contains(res, want) {
		t.Errorf("tools/call: %s\nwant it to hold, as the server sent it: %s", res, want)
	}
}

// An explicit false the server sent reaches the client: a prompt
// argument's "required": false, a completion's "hasMore": false (the
// go-sdk's types omit a false bool).
func TestServe_ExplicitFalseAsTheServerSentIt(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	c := rawSession(t, ctx)

	list := c.call(ctx, "prompts/list", `{}`)
	for _, want := range []string{`{"name":"topic","required":true}`, `{"name":"tone","required":false}`, `{"name":"extra"}`} {
		if !strings.Contains(list, want) {
			t.Errorf("prompts/list: %s\nwant it to hold %s", list, want)
		}
	}
	done := c.call(ctx, "completion/complete", `{"ref":{"type":"ref/prompt","name":"raw__ask"},"argument":{"name":"tone","value":"c"}}`)
	if want := `"hasMore":false`; !strings.Contains(done, want) {
		t.Errorf("completion/complete: %s\nwant it to hold %s", done, want)
	}
}

// A session on 2025-11-25 is sent none of the fields only 2026-07-28
// defines, neither the gateway's own (a list's cache hints) nor those the
// upstream sent (resultType), which a client validating against its
// protocol's schema may refuse.
func TestServe_LegacySessionGetsNoNewProtocolFields(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	c := rawSession(t, ctx)

	results := map[string]string{
		"tools/list":          c.call(ctx, "tools/list", `{}`),
		"prompts/list":        c.call(ctx, "prompts/list", `{}`),
		"tools/call":          c.call(ctx, "tools/call", `{"name":"raw__order","arguments":{"zeta":"x"}}`),
		"prompts/get":         c.call(ctx, "prompts/get", `{"name":"raw__ask","arguments":{"topic":"x"}}`),
		"completion/complete": c.call(ctx, "completion/complete", `{"ref":{"type":"ref/prompt","name":"raw__ask"},"argument":{"name":"tone","value":"c"}}`),
	}
	for method, res := range results {
		for _, field := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`, `"inputRequests"`, `"requestState"`, `io.modelcontextprotocol/serverInfo`} {
			if strings.Contains(res, field) {
				t.Errorf("%s on 2025-11-25: %s\nholds %s, which only 2026-07-28 defines", method, res, field)
			}
		}
	}
}

// A session on 2026-07-28 gets the relayed result whole, with the
// gateway's serverInfo in place of the upstream's (none here) and a
// result a go-sdk client takes as complete.
func TestServe_NewProtocolSessionGetsTheRelayedResult(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	c := connect(t, ctx, &mcp.CommandTransport{Command: serveCommand("--config", rawConfig(t, ""))}, "")
	t.Cleanup(func() { _ = c.cs.Close() })
	if v := c.cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	c.waitTools(ctx, []string{"raw__order"})
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "raw__order", Arguments: map[string]any{"zeta": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"z": "last", "a": "first", "m": map[string]any{"y": 1.0, "b": 2.0}}
	if diff := cmp.Diff(want, res.StructuredContent); diff != "" || res.NeedsInput() || res.IsError {
		t.Errorf("structuredContent (-want +got):\n%s\nneeds input %v, isError %v", diff, res.NeedsInput(), res.IsError)
	}
	if info, ok := res.Meta[mcp.MetaKeyServerInfo].(map[string]any); !ok || info["name"] != "mcpvisor" {
		t.Errorf("_meta %v, want the gateway's serverInfo", res.Meta)
	}
}

// A catalog listed from the cache (its server still starting) keeps the
// schemas' key order too: the cache holds the server's bytes.
func TestServe_CachedCatalogKeepsKeyOrder(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	cache, hang := t.TempDir(), filepath.Join(t.TempDir(), "hang")
	cfg := rawConfig(t, hang)
	const want = `"properties":{"zeta":{"type":"string"},"alpha":{"type":"number"},"mid":{"type":"boolean"}}`

	live := rawSession(t, ctx, "--config", cfg, "--cache-dir", cache)
	if list := live.call(ctx, "tools/list", `{}`); !strings.Contains(list, want) {
		t.Fatalf("live tools/list: %s\nwant it to hold %s", list, want)
	}
	live.stop() // the cache is written by now

	if err := os.WriteFile(hang, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The first lists wait until every starting server shows its cached
	// catalog (the hold's other end, an hour, is never reached): with no
	// hold, the list could come before the config was read and be empty.
	cached := rawSession(t, ctx, "--config", cfg, "--cache-dir", cache, "--startup-wait", "1h")
	list := cached.call(ctx, "tools/list", `{}`)
	if !strings.Contains(list, `"raw__order"`) {
		t.Fatalf("tools/list while raw starts: %s, want its cached tools", list)
	}
	if !strings.Contains(list, want) {
		t.Errorf("cached tools/list: %s\nwant it to hold, as the server sent it: %s", list, want)
	}
}
