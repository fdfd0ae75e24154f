package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
)

// A handshake ends "closed by the server" whether mcpvisor read its
// stdout's end or wrote into its stdin after it was gone (a server that
// exits before initialize is written), in the chain or flattened into the
// go-sdk's text; a protocol error is not.
func TestClosedByServer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("calling initialize: %w", io.EOF), true},
		{errors.New(`calling "initialize": client is closing: EOF`), true},
		{fmt.Errorf("write: %w", &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}), true},
		{errors.New(`connect: connection closed: calling "initialize": client is closing: write |1: broken pipe`), true},
		{errors.New(`calling "initialize": invalid character 'h' looking for beginning of value`), false},
	} {
		if got := ClosedByServer(c.err); got != c.want {
			t.Errorf("ClosedByServer(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}
