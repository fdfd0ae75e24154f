package cli

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
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
// (whose owner is then checked), not an error.
func TestDaemonDialer_StaleSocketFallsBackToTCP(t *testing.T) {
	t.Parallel()
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
