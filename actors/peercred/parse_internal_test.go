package peercred

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// The kernel prints addresses as 32-bit words in the machine's byte
// order: the fixture is written for this machine's order, from the
// address's bytes.
func kernelHex(addr netip.Addr) string {
	raw := addr.AsSlice()
	var b strings.Builder
	for i := 0; i < len(raw); i += 4 {
		w := binary.NativeEndian.Uint32(raw[i:])
		fmt.Fprintf(&b, "%08X", w)
	}
	return b.String()
}

func TestFindSocket_ReadsIPv4AndMappedIPv6(t *testing.T) {
	t.Parallel()
	v4 := netip.MustParseAddr("127.0.0.1")
	mapped := netip.MustParseAddr("::ffff:127.0.0.1")
	table := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: " + kernelHex(v4) + ":1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0\n" +
		"   1: " + kernelHex(mapped) + ":D3A2 " + kernelHex(mapped) + ":1F90 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0\n"
	uid, ok, err := findSocket(strings.NewReader(table), netip.AddrPortFrom(v4, 0xD3A2), netip.AddrPortFrom(v4, 0x1F90))
	if err != nil || !ok || uid != 1000 {
		t.Fatalf("mapped socket: uid %d, found %v, %v; want 1000", uid, ok, err)
	}
	if _, ok, _ := findSocket(strings.NewReader(table), netip.AddrPortFrom(v4, 0x1F91), netip.AddrPortFrom(v4, 0)); ok {
		t.Fatal("found a socket on a port nobody listens on")
	}
}

// Go gives a link-local connection's addresses with their zone
// (fe80::1%eth0); the kernel's tables have none. A zoned address must
// still find its socket, or a local listener on a link-local address
// looks like another machine's.
func TestFindSocket_LinkLocalAddressWithAZone(t *testing.T) {
	t.Parallel()
	ll := netip.MustParseAddr("fe80::1")
	table := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: " + kernelHex(ll) + ":1F90 " + kernelHex(ll) + ":D3A2 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0\n"
	zoned := ll.WithZone("eth0")
	uid, ok, err := findSocket(strings.NewReader(table), netip.AddrPortFrom(zoned, 0x1F90), netip.AddrPortFrom(zoned, 0xD3A2))
	if err != nil || !ok || uid != 1000 {
		t.Fatalf("fe80::1%%eth0: uid %d, found %v, %v; want 1000", uid, ok, err)
	}
}
