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
//     (apiSocketPath), whose directory must be the user's alone
//     (ondisk.CheckPrivateDir) and whose peer (SO_PEERCRED) must be the
//     user or root: only they can put a socket in that directory, and
//     root can read the token file anyway. No socket, a stale one, or a
//     path too long for a socket address (the daemon then serves TCP
//     only): TCP.
//   - Over TCP, the socket that accepted the connection must belong to the
//     user (Linux: /proc/net/tcp, peercred.TCPOwner), else the connection
//     is closed and nothing is sent. Not root's either: a root-owned
//     listener on a local port is a forwarder such as docker-proxy,
//     which any member of the docker group can have started to squat
//     the port; root's daemon is the user's only when the user is root.
//     A connection not in this machine's tables to an address that is
//     not this machine's (not loopback, not on any of its interfaces)
//     goes to another machine (the user named it with --addr or
//     MCPVISOR_ADDR, behind the TLS proxy docs/api.md asks for): there
//     is nobody to ask, and the token goes to the address the user
//     chose. One to an address of this machine that cannot be found is
//     refused.
//   - Where the platform cannot tell a socket's owner (not Linux), the
//     socket's private directory is the proof for the Unix socket; over
//     TCP the token is sent only to an address the user named, never to
//     the default one.
type daemonDialer struct {
	socket   string // the daemon's Unix socket to try first; "" for none
	explicit bool   // the user named the address
	euid     uint32 // the user; a field for tests that play another one
	tcp      net.Dialer
	// owner tells who accepted a TCP connection: peercred.TCPOwner, a
	// variable for tests of platforms without it.
	owner func(local, remote netip.AddrPort) (uint32, error)
	// localAddrs are this machine's interface addresses:
	// net.InterfaceAddrs, a variable for tests.
	localAddrs func() ([]net.Addr, error)
}

func newDaemonDialer(socket string, explicit bool) *daemonDialer {
	return &daemonDialer{
		socket:     socket,
		explicit:   explicit,
		euid:       uint32(os.Geteuid()),
		tcp:        net.Dialer{Timeout: 5 * time.Second},
		owner:      peercred.TCPOwner,
		localAddrs: net.InterfaceAddrs,
	}
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
// (nil, nil) when there is no live socket, to fall back to TCP. A path
// too long for a socket address (over 108 bytes on Linux, 104 on macOS)
// is no socket: the daemon could not listen there either, warned, and
// serves TCP only; the dial fails with EINVAL, the only error a Unix
// socket's address gives.
func (d *daemonDialer) dialSocket(ctx context.Context) (net.Conn, error) {
	if err := ondisk.CheckPrivateDir(filepath.Dir(d.socket)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, &untrustedDaemonError{addr: d.socket, reason: err.Error()}
	}
	var unixDialer net.Dialer
	c, err := unixDialer.DialContext(ctx, "unix", d.socket)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EINVAL) {
		return nil, nil // no daemon there (a stale socket of one that died, or a path too long)
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
	case uid != d.euid && uid != 0:
		c.Close()
		return nil, &untrustedDaemonError{addr: d.socket, reason: d.notYours("the process at the other end", uid)}
	}
	return c, nil
}

// checkTCP makes sure the socket that accepted c is the user's, or that
// c goes to another machine the user named.
func (d *daemonDialer) checkTCP(c net.Conn, addr string) error {
	local, errL := netip.ParseAddrPort(c.LocalAddr().String())
	remote, errR := netip.ParseAddrPort(c.RemoteAddr().String())
	if errL != nil || errR != nil {
		return &untrustedDaemonError{addr: addr, reason: fmt.Sprintf("cannot read the connection's addresses (%v %v)", errL, errR)}
	}
	// The accepted end is in the tables as soon as connect returns: a
	// request socket (SYN_RECV) listed under the listener's uid until the
	// handshake's last ACK is processed, then the connection, which
	// inherits that uid. Only with SYN cookies (a listen queue full) is
	// it not there yet: refused, to be retried by the user.
	uid, err := d.owner(remote, local)
	switch {
	case errors.Is(err, peercred.ErrUnsupported) && d.explicit:
		return nil // the user named the address; nobody to ask
	case errors.Is(err, peercred.ErrUnsupported):
		return &untrustedDaemonError{addr: addr, reason: "this platform cannot tell who listens there, and the daemon's Unix socket " +
			d.socket + " is absent: is `mcpvisor run` running? To send the token to this address anyway, name it with --addr or MCPVISOR_ADDR"}
	case errors.Is(err, peercred.ErrNotFound) && !d.isThisMachines(remote.Addr()):
		return nil // another machine's, named by the user
	case err != nil:
		return &untrustedDaemonError{addr: addr, reason: fmt.Sprintf("cannot tell who listens there: %v", err)}
	case uid != d.euid:
		return &untrustedDaemonError{addr: addr, reason: d.notYours("the socket listening there", uid) +
			"; another local user may be squatting the daemon's address while it is down. Start the daemon (`mcpvisor run`), or see who listens with `ss -ltnp`"}
	}
	return nil
}

// isThisMachines: addr is loopback or assigned to one of this machine's
// interfaces (then a connection to it that the tables do not show is not
// another machine's, whatever else it is). When the interfaces cannot be
// listed, every address is taken for this machine's: refused, not sent.
func (d *daemonDialer) isThisMachines(addr netip.Addr) bool {
	addr = addr.Unmap().WithZone("")
	if addr.IsLoopback() || addr.IsUnspecified() {
		return true
	}
	assigned, err := d.localAddrs()
	if err != nil {
		return true
	}
	for _, a := range assigned {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == addr {
				return true
			}
		}
	}
	return false
}

// notYours says whose uid is at the other end, with its name when known.
func (d *daemonDialer) notYours(what string, uid uint32) string {
	who := "uid " + strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		who += " (" + u.Username + ")"
	}
	return fmt.Sprintf("%s belongs to %s, not to you (uid %d)", what, who, d.euid)
}
