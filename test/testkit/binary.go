package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
// *bin, runs the tests, removes the directory and, if they passed, fails
// the package on any leaked goroutine. It returns the exit code.
func MainWithBinary(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "mcpvisor-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
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
