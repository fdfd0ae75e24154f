package cli

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/peercred"
)

// Where the owner of a TCP socket cannot be told (not Linux), the token
// goes only to an address the user named, never to the default one.
func TestDaemonDialer_UnsupportedPlatformSendsOnlyToANamedAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	unsupported := func(netip.AddrPort, netip.AddrPort) (uint32, error) { return 0, peercred.ErrUnsupported }
	for _, explicit := range []bool{true, false} {
		d := newDaemonDialer("", explicit)
		d.owner = unsupported
		c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
		var untrusted *untrustedDaemonError
		switch {
		case explicit && err != nil:
			t.Errorf("a named address: %v, want the connection", err)
		case !explicit && !errors.As(err, &untrusted):
			t.Errorf("the default address: %v, want a refusal", err)
		}
		if c != nil {
			c.Close()
		}
	}
}

// run's socket: its directory made 0700, the socket 0600, a stale socket
// replaced; a directory open to others, or not a socket in its place,
// refused.
func TestListenAPISocket_PrivateAndReplacesAStaleOne(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run", "mcpvisor", apiSocketName)
	ln, err := listenAPISocket(path)
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := ln.(*net.UnixListener); ok {
		l.SetUnlinkOnClose(false) // leave it behind, as a daemon that died does
	}
	ln.Close()
	dirSt, _ := os.Stat(filepath.Dir(path))
	sockSt, err := os.Stat(path)
	if err != nil || dirSt.Mode().Perm() != 0o700 || sockSt.Mode().Perm() != 0o600 || sockSt.Mode().Type() != fs.ModeSocket {
		t.Fatalf("dir %v, socket %v %v: want 0700 and a 0600 socket", dirSt.Mode(), sockSt, err)
	}
	ln, err = listenAPISocket(path)
	if err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	ln.Close()

	if err := os.Chmod(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := listenAPISocket(path); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("in a directory open to others: %v, want a refusal", err)
	}
	file := filepath.Join(t.TempDir(), "private", apiSocketName)
	if err := os.Mkdir(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listenAPISocket(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("over a regular file: %v, want a refusal", err)
	}
}

// The socket is in XDG_RUNTIME_DIR when it is absolute, else next to the
// token.
func TestAPISocketPath(t *testing.T) {
	t.Parallel()
	for env, want := range map[[2]string]string{
		{"/run/user/1000", "/state"}: "/run/user/1000/mcpvisor/api.sock",
		{"relative", "/state"}:       "/state/mcpvisor/api.sock",
		{"", "/state"}:               "/state/mcpvisor/api.sock",
	} {
		got, err := apiSocketPath(envMap(map[string]string{"XDG_RUNTIME_DIR": env[0], "XDG_STATE_HOME": env[1]}))
		if err != nil || got != want {
			t.Errorf("%v: %q %v, want %q", env, got, err, want)
		}
	}
}

// A socket left behind by a daemon that died is passed over for TCP
// (whose owner is then checked, which only Linux can), not an error.
func TestDaemonDialer_StaleSocketFallsBackToTCP(t *testing.T) {
	t.Parallel()
	requireLinux(t)
	sock := filepath.Join(t.TempDir(), "mcpvisor", apiSocketName)
	stale, err := listenAPISocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := newDaemonDialer(sock, false).DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("with a stale socket: %v, want the TCP connection", err)
	}
	c.Close()
	(<-accepted).Close()
}

// A socket path too long for a socket address (108 bytes on Linux) is
// no socket: `mcpvisor run` could not listen there, warned and serves
// TCP only, so the CLI falls back to TCP (checked) instead of failing
// with "invalid argument".
func TestDaemonDialer_SocketPathTooLongFallsBackToTCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for len(dir) < 120 {
		dir = filepath.Join(dir, "a-long-runtime-directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ln := acceptAll(t, "127.0.0.1:0")
	d := newDaemonDialer(filepath.Join(dir, apiSocketName), false)
	d.owner = ownedBy(d.euid, nil)
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("with a socket path of %d bytes: %v, want the TCP connection", len(dir)+len(apiSocketName)+1, err)
	}
	c.Close()
}

// A TCP listener owned by root is not the user's daemon (unless the user
// is root): it is a forwarder such as docker-proxy, which any member of
// the docker group can start to squat the daemon's port. The user here
// is played by uid 1000, as the test runs as root.
func TestDaemonDialer_RootsTCPListenerIsNotTheUsers(t *testing.T) {
	t.Parallel()
	ln := acceptAll(t, "127.0.0.1:0")
	for owner, wantRefused := range map[uint32]bool{0: true, 1000: false, 1001: true} {
		d := newDaemonDialer("", true)
		d.euid = 1000
		d.owner = ownedBy(owner, nil)
		c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
		var untrusted *untrustedDaemonError
		switch {
		case wantRefused && !errors.As(err, &untrusted):
			t.Errorf("a listener owned by uid %d: %v, want a refusal", owner, err)
		case !wantRefused && err != nil:
			t.Errorf("the user's own listener: %v, want the connection", err)
		}
		if c != nil {
			c.Close()
		}
	}
}

// A connection the tables do not show is taken for another machine's
// only when its address is not this machine's: one to an address of one
// of its interfaces (a link-local fe80::…%eth0 was, before peercred
// dropped the zone) is refused, not sent the token.
func TestDaemonDialer_NotFoundOnALocalAddressIsRefused(t *testing.T) {
	t.Parallel()
	addr := nonLoopbackAddr(t)
	ln := acceptAll(t, netip.AddrPortFrom(addr, 0).String())
	target := netip.AddrPortFrom(addr, uint16(ln.Addr().(*net.TCPAddr).Port)).String()
	for _, remote := range []bool{false, true} {
		d := newDaemonDialer("", true)
		d.owner = ownedBy(0, peercred.ErrNotFound)
		if remote { // as if the address were another machine's
			d.localAddrs = func() ([]net.Addr, error) { return nil, nil }
		}
		c, err := d.DialContext(context.Background(), "tcp", target)
		var untrusted *untrustedDaemonError
		switch {
		case !remote && !errors.As(err, &untrusted):
			t.Errorf("%s, this machine's, not found: %v, want a refusal", target, err)
		case remote && err != nil:
			t.Errorf("%s as another machine's: %v, want the connection", target, err)
		}
		if c != nil {
			c.Close()
		}
	}
}

// nonLoopbackAddr is an address of one of this machine's interfaces, not
// loopback: a link-local IPv6 one (with its zone) if there is one. The
// test is skipped, saying why, on a machine without any.
func nonLoopbackAddr(t *testing.T) netip.Addr {
	t.Helper()
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	var found netip.Addr
	for _, iface := range ifaces {
		addrs, _ := iface.Addrs()
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(n.IP)
			switch {
			case !ok || ip.IsLoopback() || iface.Flags&net.FlagUp == 0:
			case ip.Is6() && ip.IsLinkLocalUnicast():
				return ip.WithZone(iface.Name)
			case !found.IsValid() && !ip.IsLinkLocalUnicast():
				found = ip.Unmap()
			}
		}
	}
	if !found.IsValid() {
		t.Skip("this machine has no address but loopback to listen on")
	}
	return found
}

// acceptAll listens on addr and closes every connection it accepts,
// until the test ends.
func acceptAll(t *testing.T, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln
}

// ownedBy is a daemonDialer.owner that answers uid, err.
func ownedBy(uid uint32, err error) func(netip.AddrPort, netip.AddrPort) (uint32, error) {
	return func(netip.AddrPort, netip.AddrPort) (uint32, error) { return uid, err }
}

func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the CLI checks a TCP listener's owner on Linux only (peercred reads /proc/net/tcp)")
	}
}
