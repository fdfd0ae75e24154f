package clients_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// matrixTimeout bounds each test: a client run is a few seconds, a
// gateway's stop takes up to its stop grace.
const matrixTimeout = 3 * time.Minute

// clientEnv is the environment of every client: this process's, with Node
// 22 first on PATH (the Inspector needs it, and what the clients spawn
// with `node` gets it too), minus what would point a gateway elsewhere:
// the mark a gateway leaves on what it starts (tests may themselves run
// under an `mcpvisor serve`), a default config and a token.
func clientEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "MCPVISOR_SERVE_PID="), strings.HasPrefix(kv, "MCPVISOR_CONFIG="),
			strings.HasPrefix(kv, "MCPVISOR_TOKEN="), strings.HasPrefix(kv, "PATH="):
		default:
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Dir(nodeBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

// output is what a finished client process printed.
type output struct {
	stdout, stderr string
	err            error // cmd.Wait's
}

// runClient runs name args in dir under ctx, in its own process group
// (killed whole when ctx ends, so that a hung client takes what it started
// with it), and returns what it printed.
func runClient(ctx context.Context, dir string, env []string, name string, args ...string) output {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return output{stdout.String(), stderr.String(), err}
}

// writeServers writes the gateway's config: server-everything over stdio,
// on the pinned Node 22, as "everything".
func writeServers(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "servers.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{
		"everything": {Command: nodeBin, Args: []string{everythingJS, "stdio"}},
	})
	return cfg
}

// writeToken writes a fresh gateway token (32 random bytes, base64url,
// mode 0600) and returns its file and value.
func writeToken(t *testing.T) (file, token string) {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	file = filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, token
}

var gatewayAt = regexp.MustCompile(`MCP gateway at (http://\S+/mcp),`)

// startServeHTTP starts `mcpvisor serve --listen 127.0.0.1:0 args...` and
// returns its endpoint once it says where it listens. It is stopped with
// SIGTERM and waited for at cleanup; its stderr is logged if the test
// failed.
func startServeHTTP(t *testing.T, ctx context.Context, args ...string) (endpoint string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = clientEnv()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr := &testkit.SyncBuffer{}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			_, _ = stderr.Write([]byte(sc.Text() + "\n"))
			if m := gatewayAt.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		stopped := make(chan struct{})
		go func() {
			<-copied // Wait closes the pipe: read it all first
			_ = cmd.Wait()
			close(stopped)
		}()
		bound, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		select {
		case <-stopped:
		case <-bound.Done():
			_ = cmd.Process.Kill()
			<-stopped
			t.Errorf("mcpvisor serve did not stop within 30 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("mcpvisor serve stderr:\n%s", stderr)
		}
	})
	select {
	case endpoint = <-found:
	case <-copied:
		select {
		case endpoint = <-found: // said where, then stopped: the client will say
		default:
			t.Fatalf("mcpvisor serve exited before it listened; stderr:\n%s", stderr)
		}
	case <-ctx.Done():
		t.Fatalf("mcpvisor serve never said where it listens; stderr:\n%s", stderr)
	}
	return endpoint
}

// cacheDir is a fresh catalog cache directory for one gateway. It is not
// a t.TempDir: a stdio gateway may outlive the client that launched it by
// its stop grace and write its cache meanwhile, which would fail the
// test's removal of its TempDir. It lives under XDG_CACHE_HOME, the
// package's temporary directory (MainWithBinary), removed after the run.
func cacheDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("XDG_CACHE_HOME")
	if err := os.MkdirAll(base, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "matrix-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
