package peercred_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/peercred"
	"github.com/mcpvisor/mcpvisor/test/testkit"
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

// A connection to a link-local address (fe80::…%eth0, which Go gives
// with its zone) is found in the tables, which have no zones.
func TestTCPOwner_LinkLocalConnectionIsFound(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	addr := linkLocalAddr(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(addr.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port // the listener's address has lost its zone
	client, err := net.Dial("tcp", netip.AddrPortFrom(addr, uint16(port)).String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	uid, err := peercred.TCPOwner(addrPort(t, server.LocalAddr()), addrPort(t, server.RemoteAddr()))
	if err != nil || uid != uint32(os.Geteuid()) {
		t.Fatalf("TCPOwner(%v → %v) = %d, %v; want %d", server.LocalAddr(), server.RemoteAddr(), uid, err, os.Geteuid())
	}
}

// linkLocalAddr is a link-local IPv6 address of this machine, with its
// zone; the test is skipped, saying why, on a machine without one.
func linkLocalAddr(t *testing.T) netip.Addr {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, iface := range ifaces {
		addrs, _ := iface.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Is6() && ip.IsLinkLocalUnicast() {
					return ip.WithZone(iface.Name)
				}
			}
		}
	}
	t.Skip("this machine has no link-local IPv6 address to listen on")
	return netip.Addr{}
}

func TestTCPOwner_UnknownConnectionIsNotFound(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	_, err := peercred.TCPOwner(netip.MustParseAddrPort("127.0.0.1:1"), netip.MustParseAddrPort("127.0.0.1:2"))
	if err != peercred.ErrNotFound {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

// ConnOwner tells the owner of an accepted connection of ours, on TCP
// and on a Unix socket; a connection of no socket at all is not local.
func TestConnOwner_OurOwnConnections(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	me := uint32(os.Geteuid())
	for _, network := range []string{"tcp", "unix"} {
		addr := "127.0.0.1:0"
		if network == "unix" {
			addr = filepath.Join(t.TempDir(), "s")
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		client, err := net.Dial(network, ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer server.Close()
		if uid, err := peercred.ConnOwner(server); err != nil || uid != me {
			t.Errorf("%s: ConnOwner = %d, %v; want %d", network, uid, err, me)
		}
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := peercred.ConnOwner(a); !errors.Is(err, peercred.ErrNotLocal) {
		t.Errorf("a pipe: %v, want ErrNotLocal", err)
	}
}

// The point of the package: a connection made by another user is told
// apart from one of ours, on TCP and on a Unix socket.
func TestOwner_AnotherUsersConnectionIsTheirs(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	other := testkit.Stranger(t)
	bin := testkit.SharedTestBinary(t)
	dir := testkit.SharedDir(t)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := dialAs(t, other, bin, ln.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, err := peercred.TCPOwner(addrPort(t, c.RemoteAddr()), addrPort(t, c.LocalAddr()))
	if err != nil || uid != uint32(other.UID) {
		t.Errorf("TCP: the client's end is owned by %d, %v; want %s's %d", uid, err, other.Name, other.UID)
	}
	if uid, err := peercred.ConnOwner(c); err != nil || uid != uint32(other.UID) {
		t.Errorf("TCP: ConnOwner = %d, %v; want %s's %d", uid, err, other.Name, other.UID)
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
	stop = dialAs(t, other, bin, sock)
	defer stop()
	uc, err := uln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	uid, err = peercred.UnixOwner(uc.(*net.UnixConn))
	if err != nil || uid != uint32(other.UID) {
		t.Errorf("Unix: the peer is %d, %v; want %s's %d", uid, err, other.Name, other.UID)
	}
	if uid, err := peercred.ConnOwner(uc); err != nil || uid != uint32(other.UID) {
		t.Errorf("Unix: ConnOwner = %d, %v; want %s's %d", uid, err, other.Name, other.UID)
	}
}

// dialAs runs the test binary bin as who, connected to addr, until stop.
func dialAs(t *testing.T, who testkit.OtherUser, bin, addr string) (stop func()) {
	t.Helper()
	cmd := who.Command(context.Background(), bin)
	cmd.Env = []string{dialEnv + "=" + addr}
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
		t.Fatalf("the client as %s did not connect to %s: %q, %v", who.Name, addr, line, err)
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
