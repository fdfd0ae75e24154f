// Package conformance_test runs mcpvisor, embedded with actors.Start,
// against real third-party MCP servers installed from npm: the reference
// servers everything (over stdio, streamable HTTP and SSE), filesystem,
// memory and sequential-thinking, at the versions pinned in package.json.
//
// The servers are not vendored. Install them with `npm ci` in this
// directory (CI does it in .ci/run). Without them every test of this
// package fails: a conformance suite that skips itself proves nothing.
//
// Goroutines and processes: every test closes its Supervisor and kills and
// reaps the HTTP servers it started itself (t.Cleanup). TestMain checks for
// leaked goroutines; TestClose_LeavesNoProcessOrDescriptor checks for
// leaked processes and file descriptors.
package conformance_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Absolute paths of what the tests run, set by TestMain.
var (
	nodeBin      string // the node executable
	loopbackJS   string // preload that binds listen(port) to 127.0.0.1
	everythingJS string
	filesystemJS string
	memoryJS     string
	thinkingJS   string
)

func TestMain(m *testing.M) {
	if err := locateServers(); err != nil {
		fmt.Fprintf(os.Stderr, "conformance: %v\n", err)
		os.Exit(1)
	}
	code := testkit.WithTempCache(m).Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

const installHint = "run `npm ci` in test/conformance (or `bash .ci/run`, which does it)"

// locateServers finds node and the installed servers, and checks that
// node_modules holds exactly the versions package.json pins.
func locateServers() error {
	var err error
	if nodeBin, err = exec.LookPath("node"); err != nil {
		return fmt.Errorf("node not found on PATH (%v): install Node.js 20 or later, then %s", err, installHint)
	}
	dir, err := os.Getwd() // go test runs a package's tests in its directory
	if err != nil {
		return err
	}
	loopbackJS = filepath.Join(dir, "loopback.cjs")

	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return fmt.Errorf("%s is missing: %s", filepath.Join(dir, "node_modules"), installHint)
	}
	entry := map[string]*string{
		"@modelcontextprotocol/server-everything":          &everythingJS,
		"@modelcontextprotocol/server-filesystem":          &filesystemJS,
		"@modelcontextprotocol/server-memory":              &memoryJS,
		"@modelcontextprotocol/server-sequential-thinking": &thinkingJS,
	}
	for pkg, path := range entry {
		if *path, err = testkit.PinnedNPMEntry(dir, pkg, "dist/index.js"); err != nil {
			return fmt.Errorf("%w: %s", err, installHint)
		}
	}
	return nil
}
