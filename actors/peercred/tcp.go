package peercred

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// ErrUnsupported is returned where the platform has no way to tell a
// socket's owner.
var ErrUnsupported = errors.New("peercred: telling a socket's owner is not supported on this platform")

// ErrNotFound is returned when no socket has the given addresses (the
// connection is already gone, or never was a local one).
var ErrNotFound = errors.New("peercred: no such socket on this machine")

// procTables are the kernel's TCP socket tables, IPv4 then IPv6. A
// variable so that tests can point it at a fixture.
var procTables = []string{"/proc/net/tcp", "/proc/net/tcp6"}

// TCPOwner returns the uid that owns the TCP socket whose own address is
// local and whose peer is remote. For the accepted end of a connection
// (local is the listener's address, remote the client's) that is the
// listener's owner; for the client's end (local and remote swapped) it is
// the client's. IPv4-mapped IPv6 addresses match their IPv4 form, and a
// link-local address matches whatever its zone (fe80::1%eth0 is
// fe80::1 in the tables, which have no zones).
func TCPOwner(local, remote netip.AddrPort) (uint32, error) {
	found := false
	for _, name := range procTables {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("peercred: %w", err)
		}
		found = true
		uid, ok, err := findSocket(f, local, remote)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("peercred: reading %s: %w", name, err)
		}
		if ok {
			return uid, nil
		}
	}
	if !found {
		return 0, ErrUnsupported
	}
	return 0, ErrNotFound
}

// findSocket scans one table for the socket local → remote. A line is
//
//	sl  local_address rem_address   st tx_queue:rx_queue tr:tm->when retrnsmt   uid ...
//	0: 0100007F:1F90 0100007F:D3A2 01 00000000:00000000 00:00000000 00000000  1000 ...
func findSocket(r io.Reader, local, remote netip.AddrPort) (uint32, bool, error) {
	local, remote = unmapped(local), unmapped(remote)
	sc := bufio.NewScanner(r)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		l, errL := parseAddrPort(fields[1])
		rm, errR := parseAddrPort(fields[2])
		if errL != nil || errR != nil || l != local || rm != remote {
			continue
		}
		uid, err := strconv.ParseUint(fields[7], 10, 32)
		if err != nil {
			return 0, false, fmt.Errorf("uid %q: %w", fields[7], err)
		}
		return uint32(uid), true, nil
	}
	return 0, false, sc.Err()
}

// parseAddrPort reads the kernel's "ADDR:PORT" in hex: the address is
// printed as 32-bit words in the machine's byte order, the port as a
// number.
func parseAddrPort(s string) (netip.AddrPort, error) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	raw, err := hex.DecodeString(hexAddr)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q", s)
	}
	addr, _ := netip.AddrFromSlice(raw)
	return unmapped(netip.AddrPortFrom(addr, uint16(port))), nil
}

// unmapped is ap as the kernel's tables print it: an IPv4-mapped address
// as IPv4, and no zone (Unmap keeps one: a zoned address, as Go gives
// for a link-local connection, would otherwise never match, and a
// connection to fe80::1%eth0 would look like another machine's).
func unmapped(ap netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
}
