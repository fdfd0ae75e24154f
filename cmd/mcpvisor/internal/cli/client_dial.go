package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpvisor/mcpvisor/actors/ondisk"
	"github.com/mcpvisor/mcpvisor/actors/peercred"
)

// daemonDialer connects the CLI to the daemon and makes sure, before the
// HTTP client sends a single byte (the token first of all), that the
// other end is the user's own (P1: while the daemon was down, another
// local user listened on 127.0.0.1:7767 and collected the token that
// `mcpvisor status` sent).
//
//   - With the default address, it first tries the daemon's Unix socket
//     (apiSocketPath), whose directory must be the user's alone (ondisk.CheckPrivateDir) and whose
//     peer (SO_PEERCRED) must be the user or root. No socket, or a stale
//     one: TCP.
//   - Over TCP, the socket that accepted the connection must belong to the
//     user or to root (Linux: /proc/net/tcp, peercred.TCPOwner), else the
//     connection is closed and nothing is sent. An address whose
//     connection is not in this machine's tables is another machine's
//     (the user named it with --addr or MCPVISOR_ADDR, behind the TLS
//     proxy docs/api.md asks for): there is nobody to ask, and the token
//     goes to the address the user chose.
//   - Where the platform cannot tell a socket's owner (not Linux), the
//     socket's private directory is the proof for the Unix socket; over
//     TCP the token is sent only to an address the user named, never to
//     the default one.
type daemonDialer struct {
	socket   string // the daemon's Unix socket to try first; "" for none
	explicit bool   // the user named the address
	tcp      net.Dialer
	// owner tells who accepted a TCP connection: peercred.TCPOwner, a
	// variable for tests of platforms without it.
	owner func(local, remote netip.AddrPort) (uint32, error)
}

func newDaemonDialer(socket string, explicit bool) *daemonDialer {
	return &daemonDialer{socket: socket, explicit: explicit, tcp: net.Dialer{Timeout: 5 * time.Second}, owner: peercred.TCPOwner}
}

// untrustedDaemonError: the address is served by someone else than the
// user; nothing was sent.
type untrustedDaemonError struct {
	addr   string
	reason string
}

func (e *untrustedDaemonError) Error() string {
	return fmt.Sprintf("refusing to talk to %s, nothing was sent (not the token either): %s", e.addr, e.reason)
}

// DialContext is the HTTP transport's: addr is the daemon's host:port.
func (d *daemonDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.socket != "" {
		c, err := d.dialSocket(ctx)
		if c != nil || err != nil {
			return c, err
		}
	}
	c, err := d.tcp.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := d.checkTCP(c, addr); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// dialSocket connects to the daemon's Unix socket and checks its peer;
// (nil, nil) when there is no live socket, to fall back to TCP.
func (d *daemonDialer) dialSocket(ctx context.Context) (net.Conn, error) {
	if err := ondisk.CheckPrivateDir(filepath.Dir(d.socket)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, &untrustedDaemonError{addr: d.socket, reason: err.Error()}
	}
	var unixDialer net.Dialer
	c, err := unixDialer.DialContext(ctx, "unix", d.socket)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
		return nil, nil // no daemon there (a stale socket of one that died)
	}
	if err != nil {
		return nil, err
	}
	uid, err := peercred.UnixOwner(c.(*net.UnixConn))
	switch {
	case errors.Is(err, peercred.ErrUnsupported): // the private directory vouches for it
	case err != nil:
		c.Close()
		return nil, &untrustedDaemonError{addr: d.socket, reason: err.Error()}
	case !trustedUID(uid):
		c.Close()
		return nil, &untrustedDaemonError{addr: d.socket, reason: notYours("the process at the other end", uid)}
	}
	return c, nil
}

// checkTCP makes sure the socket that accepted c is the user's (or
// root's), or that c goes to another machine the user named.
func (d *daemonDialer) checkTCP(c net.Conn, addr string) error {
	local, errL := netip.ParseAddrPort(c.LocalAddr().String())
	remote, errR := netip.ParseAddrPort(c.RemoteAddr().String())
	if errL != nil || errR != nil {
		return &untrustedDaemonError{addr: addr, reason: fmt.Sprintf("cannot read the connection's addresses (%v %v)", errL, errR)}
	}
	uid, err := d.acceptedBy(remote, local)
	switch {
	case errors.Is(err, peercred.ErrUnsupported) && d.explicit:
		return nil // the user named the address; nobody to ask
	case errors.Is(err, peercred.ErrUnsupported):
		return &untrustedDaemonError{addr: addr, reason: "this platform cannot tell who listens there, and the daemon's Unix socket " +
			d.socket + " is absent: is `mcpvisor run` running? To send the token to this address anyway, name it with --addr or MCPVISOR_ADDR"}
	case errors.Is(err, peercred.ErrNotFound) && !remote.Addr().Unmap().IsLoopback():
		return nil // another machine's, named by the user
	case err != nil:
		return &untrustedDaemonError{addr: addr, reason: fmt.Sprintf("cannot tell who listens there: %v", err)}
	case !trustedUID(uid):
		return &untrustedDaemonError{addr: addr, reason: notYours("the socket listening there", uid) +
			"; another local user may be squatting the daemon's address while it is down. Start the daemon (`mcpvisor run`), or see who listens with `ss -ltnp`"}
	}
	return nil
}

// acceptedBy asks the kernel who owns the accepted end of a connection,
// a few times: the table is read while the kernel may still be moving
// the connection from the listener's queue (then it is not found).
func (d *daemonDialer) acceptedBy(server, client netip.AddrPort) (uint32, error) {
	var uid uint32
	var err error
	for range 3 {
		if uid, err = d.owner(server, client); !errors.Is(err, peercred.ErrNotFound) {
			break
		}
	}
	return uid, err
}

// trustedUID: the user itself, or root (who can read the user's token
// file anyway).
func trustedUID(uid uint32) bool { return uid == uint32(os.Geteuid()) || uid == 0 }

// notYours says whose uid is at the other end, with its name when known.
func notYours(what string, uid uint32) string {
	who := "uid " + strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		who += " (" + u.Username + ")"
	}
	return fmt.Sprintf("%s belongs to %s, not to you (uid %d)", what, who, os.Geteuid())
}
