package peercred_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"testing"
)

// dialEnv makes the test binary, re-executed as another user, a client:
// it dials the address, says so, and holds the connection until its
// standard input closes.
const dialEnv = "PEERCRED_TEST_DIAL"

func TestMain(m *testing.M) {
	if addr := os.Getenv(dialEnv); addr != "" {
		os.Exit(dialAndHold(addr))
	}
	os.Exit(m.Run())
}

func dialAndHold(addr string) int {
	network := "tcp"
	if addr[0] == '/' {
		network = "unix"
	}
	c, err := net.Dial(network, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	fmt.Println("connected")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
