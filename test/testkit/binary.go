package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
