package conformance_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// httpServer is a server-everything the test runs itself over streamable
// HTTP or legacy SSE, bound to 127.0.0.1 by the loopback preload. It can be
// killed and started again on the same port.
type httpServer struct {
	t    *testing.T
	mode string // index.js argument: "streamableHttp" or "sse"
	port int

	mu   sync.Mutex
	proc *nodeProcess // the current process, nil once killed
}

type nodeProcess struct {
	cmd    *exec.Cmd
	output *testkit.SyncBuffer
	exited chan struct{} // closed once the process was reaped
}

// startHTTPServer starts server-everything in mode on a free loopback port
// and returns once it accepts connections. It is killed and reaped at
// cleanup.
func startHTTPServer(ctx context.Context, t *testing.T, mode string) *httpServer {
	t.Helper()
	s := &httpServer{t: t, mode: mode, port: freePort(t)}
	t.Cleanup(s.kill)
	s.start(ctx)
	return s
}

// entry is the config entry that reaches this server.
func (s *httpServer) entry() testkit.Server {
	if s.mode == "sse" {
		return testkit.Server{Type: "sse", URL: fmt.Sprintf("http://127.0.0.1:%d/sse", s.port)}
	}
	return testkit.Server{Type: "http", URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", s.port)}
}

// start runs the server on its port and waits until the port accepts
// connections; it then checks that nothing listens on it beyond 127.0.0.1.
func (s *httpServer) start(ctx context.Context) {
	s.t.Helper()
	cmd := exec.Command(nodeBin, "--require", loopbackJS, everythingJS, s.mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(s.port))
	out := &testkit.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start server-everything %s: %v", s.mode, err)
	}
	p := &nodeProcess{cmd: cmd, output: out, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var d net.Dialer
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			break
		}
		select {
		case <-ctx.Done():
			s.t.Fatalf("server-everything %s never listened on %s: %v\noutput:\n%s", s.mode, addr, ctx.Err(), out)
		case <-p.exited:
			s.t.Fatalf("server-everything %s exited before listening on %s: %v\noutput:\n%s", s.mode, addr, cmd.ProcessState, out)
		case <-tick.C:
		}
	}
	if got := listeners(s.t, s.port); !slices.Equal(got, []string{"127.0.0.1"}) {
		s.t.Fatalf("port %d is listened on at %v, want only 127.0.0.1 (is the loopback preload working?)", s.port, got)
	}
}

// kill ends the current process with SIGKILL and reaps it. It is
// idempotent.
func (s *httpServer) kill() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before node binds it; node then exits and the test says so.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// listeners lists the local addresses of the sockets listening on port,
// from /proc/net/tcp and tcp6 (one line per socket: "sl local remote st").
func listeners(t *testing.T, port int) []string {
	t.Helper()
	var out []string
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			if os.IsNotExist(err) {
				continue // no IPv6
			}
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 4 || f[3] != "0A" { // 0A is TCP_LISTEN
				continue
			}
			hexIP, hexPort, ok := strings.Cut(f[1], ":")
			if p, err := strconv.ParseUint(hexPort, 16, 16); !ok || err != nil || int(p) != port {
				continue
			}
			out = append(out, procNetIP(hexIP))
		}
	}
	slices.Sort(out)
	return out
}

// socketInfo describes an fd target "socket:[inode]" of a TCP socket as
// " (tcp local -> remote)", or "" for anything else.
func socketInfo(t *testing.T, target string) string {
	t.Helper()
	inode, ok := strings.CutPrefix(target, "socket:[")
	if !ok {
		return ""
	}
	inode = strings.TrimSuffix(inode, "]")
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) > 9 && f[9] == inode {
				return fmt.Sprintf(" (tcp %s -> %s, state %s)", procNetAddr(f[1]), procNetAddr(f[2]), f[3])
			}
		}
	}
	return ""
}

// procNetAddr decodes "IP:PORT" as /proc/net/tcp{,6} write it.
func procNetAddr(s string) string {
	hexIP, hexPort, _ := strings.Cut(s, ":")
	port, _ := strconv.ParseUint(hexPort, 16, 16)
	return net.JoinHostPort(procNetIP(hexIP), strconv.FormatUint(port, 10))
}

// procNetIP decodes an address of /proc/net/tcp{,6}: 32-bit words in host
// (little-endian here) byte order.
func procNetIP(h string) string {
	b := make(net.IP, 0, len(h)/2)
	for w := 0; w+8 <= len(h); w += 8 {
		for i := 6; i >= 0; i -= 2 {
			v, _ := strconv.ParseUint(h[w+i:w+i+2], 16, 8)
			b = append(b, byte(v))
		}
	}
	return b.String()
}
