package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// BuildBinary builds the mcpvisor command into dir and returns its path.
// Call it from TestMain; the binary is also the example MCP server
// (`mcpvisor example-server`).
func BuildBinary(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out := filepath.Join(dir, "mcpvisor")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/mcpvisor")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return out, nil
}

// MainWithBinary is a TestMain body for packages that run the mcpvisor
// binary: it builds it into a temporary directory, stores its path in
// *bin, points XDG_STATE_HOME there too (the daemons and gateways the
// tests start keep their API token in it, not in the user's ~/.local/state,
// and the CLI finds it there) and XDG_CACHE_HOME (their catalog cache),
// runs the tests, removes the directory and,
// if they passed, fails the package on any leaked goroutine. It returns
// the exit code.
func MainWithBinary(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "mcpvisor-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := moveCacheHome(filepath.Join(dir, "cache")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Unsetenv("MCPVISOR_TOKEN")
	if *bin, err = BuildBinary(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build mcpvisor:", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}

// APIToken is the token that the daemons and gateways of a package run
// by MainWithBinary share: the one the first of them created.
func APIToken(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "mcpvisor", "token"))
	if err != nil {
		t.Fatalf("the API token: %v", err)
	}
	return strings.TrimSpace(string(b))
}
