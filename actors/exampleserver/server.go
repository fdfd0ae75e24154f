package exampleserver

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options are the example server's behaviour switches, one per flag.
type Options struct {
	Name       string
	InitDelay  time.Duration
	InitHang   bool
	InitFail   bool
	ExitAfter  time.Duration
	ExitCode   int
	Garbage    bool
	ExtraTools int
}

// ParseFlags reads Options from command-line arguments.
func ParseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := flag.NewFlagSet("example-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Name, "name", "example", "server name reported in the handshake")
	fs.DurationVar(&o.InitDelay, "init-delay", 0, "wait this long before answering anything")
	fs.BoolVar(&o.InitHang, "init-hang", false, "never answer the handshake")
	fs.BoolVar(&o.InitFail, "init-fail", false, "fail the handshake: print a reason to stderr and exit 1")
	fs.DurationVar(&o.ExitAfter, "exit-after", 0, "exit this long after start (status from --exit-code)")
	fs.IntVar(&o.ExitCode, "exit-code", 3, "exit status for --exit-after")
	fs.BoolVar(&o.Garbage, "garbage", false, "write non-JSON-RPC lines to stdout before serving")
	fs.IntVar(&o.ExtraTools, "extra-tools", 0, "add N more tools named tool-1 ... tool-N")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, nil
}

// Run serves MCP on stdin and stdout until stdin closes.
func Run(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "example-server %s: pid %d starting\n", o.Name, os.Getpid())
	if o.ExitAfter > 0 {
		time.AfterFunc(o.ExitAfter, func() {
			fmt.Fprintf(stderr, "example-server %s: exiting with status %d after %s\n", o.Name, o.ExitCode, o.ExitAfter)
			os.Exit(o.ExitCode)
		})
	}
	if o.InitFail {
		fmt.Fprintf(stderr, "example-server %s: handshake refused (--init-fail)\n", o.Name)
		os.Exit(1)
	}
	if o.InitHang {
		fmt.Fprintf(stderr, "example-server %s: hanging (--init-hang)\n", o.Name)
		_, _ = io.Copy(io.Discard, stdin) // until the client gives up and closes stdin
		return nil
	}
	if o.InitDelay > 0 {
		select {
		case <-time.After(o.InitDelay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if o.Garbage {
		fmt.Fprintln(stdout, "this is not JSON-RPC")
		fmt.Fprintln(stdout, "{\"neither\": \"is this\"}")
	}
	srv := New(o)
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
