package e2e_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// embedderEnv, set to a config path, makes the test binary an embedder:
// it supervises that config with actors.Start (no keeper: that is the
// CLI's) until its stdin ends or it is killed.
const embedderEnv = "MCPVISOR_E2E_EMBEDDER_CONFIG"

// runEmbedder is the test binary as an embedder of actors.
func runEmbedder(cfg string) int {
	sup, err := actors.Start(actors.Options{ConfigPaths: []string{cfg}, DisableWatch: true, CacheDir: "-"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = sup.Close()
	return 0
}

// An embedder killed with SIGKILL runs no code of its own, yet its
// servers die with it on Linux: each gets a parent-death signal. The
// server here ignores SIGTERM and the end of its input (a shell that
// waits for a grandchild), so nothing else would end it. What the server
// started is beyond that signal (the CLI's keeper handles it,
// TestServe_KilledLeavesNoProcess); the test kills that group itself.
func TestEmbedder_KilledServersDie(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_RDWR, 0) // opens at once, never blocks the shell
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// $$$$ is the shell's $$: the config's expansion reads $$ as $.
	script := fmt.Sprintf("trap '' TERM; sleep 300 & echo $$$$ > %s; %s example-server; wait", fifo, bin)
	cfg := filepath.Join(dir, ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"stubborn": {Command: "/bin/sh", Args: []string{"-c", script}}})

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), embedderEnv+"="+cfg)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()

	if dl, ok := ctx.Deadline(); ok {
		_ = f.SetReadDeadline(dl)
	}
	var shell int
	line, err := bufio.NewReader(f).ReadString('\n')
	if err == nil {
		_, err = fmt.Sscan(line, &shell)
	}
	if err != nil {
		t.Fatalf("the server's pid: %v (read %q)", err, line)
	}
	t.Cleanup(func() { _ = syscall.Kill(-shell, syscall.SIGKILL) })

	deathCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	if err := testkit.WaitProcessGone(deathCtx, shell); err != nil {
		t.Fatalf("the server outlived its killed embedder: %v", err)
	}
}
