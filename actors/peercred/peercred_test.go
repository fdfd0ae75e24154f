package peercred_test

import (
	"bufio"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/peercred"
)

func TestTCPOwner_BothEndsOfALoopbackConnectionAreOurs(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	me := uint32(os.Geteuid())
	for _, c := range []net.Conn{client, server} {
		uid, err := peercred.TCPOwner(addrPort(t, c.LocalAddr()), addrPort(t, c.RemoteAddr()))
		if err != nil || uid != me {
			t.Errorf("TCPOwner(%v → %v) = %d, %v; want %d", c.LocalAddr(), c.RemoteAddr(), uid, err, me)
		}
	}
}

func TestTCPOwner_UnknownConnectionIsNotFound(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	_, err := peercred.TCPOwner(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
	if err != peercred.ErrNotFound {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// The point of the package: a connection made by another user is told
// apart from one of ours, on TCP and on a Unix socket.
func TestOwner_AnotherUsersConnectionIsTheirs(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	other := otherUser(t)
	dir := sharedDir(t)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := dialAs(t, other, dir, ln.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, err := peercred.TCPOwner(addrPort(t, c.RemoteAddr()), addrPort(t, c.LocalAddr()))
	if err != nil || uid != other.uid {
		t.Errorf("TCP: the client's end is owned by %d, %v; want %s's %d", uid, err, other.name, other.uid)
	}
	stop()

	sock := filepath.Join(dir, "s")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer uln.Close()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	stop = dialAs(t, other, dir, sock)
	defer stop()
	uc, err := uln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	uid, err = peercred.UnixOwner(uc.(*net.UnixConn))
	if err != nil || uid != other.uid {
		t.Errorf("Unix: the peer is %d, %v; want %s's %d", uid, err, other.name, other.uid)
	}
}

type account struct {
	name     string
	uid, gid uint32
}

// otherUser is nobody; the test must run as root to act as it, and says
// so loudly otherwise.
func otherUser(t *testing.T) account {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test connects as another local user and must run as root (CI does); it cannot prove anything as an ordinary user")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no user nobody to be the other user: %v", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return account{name: "nobody", uid: uint32(uid), gid: uint32(gid)}
}

// sharedDir is a directory the other user can enter, holding a copy of
// the test binary it can run.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "peercred-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "peercred.test"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dialAs runs the test binary as who, connected to addr, until stop.
func dialAs(t *testing.T, who account, dir, addr string) (stop func()) {
	t.Helper()
	cmd := exec.Command(filepath.Join(dir, "peercred.test"))
	cmd.Env = []string{dialEnv + "=" + addr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: who.uid, Gid: who.gid}}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "connected\n" {
		stdin.Close()
		_ = cmd.Wait()
		t.Fatalf("the client as %s did not connect to %s: %q, %v", who.name, addr, line, err)
	}
	return func() { stdin.Close(); _ = cmd.Wait() }
}

func addrPort(t *testing.T, a net.Addr) netip.AddrPort {
	t.Helper()
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("peercred reads Linux's socket tables; elsewhere it returns ErrUnsupported")
	}
}
