package exampleserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New builds the example server with the features o asks for. It starts
// no goroutine: the --update-every timer belongs to Serve.
func New(o Options) *mcp.Server {
	return build(o).srv
}

// example is the server and the state its features share.
type example struct {
	o       Options
	srv     *mcp.Server
	counter *counter // nil without Resources
}

func build(o Options) *example {
	e := &example{o: o}
	opts := &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}}
	if o.Resources {
		e.counter = &counter{}
		opts.SubscribeHandler = e.subscribe
		opts.UnsubscribeHandler = e.unsubscribe
	}
	if o.Completion {
		opts.CompletionHandler = e.complete
	}
	if o.TwoWay {
		advertiseLogging(opts.Capabilities)
	}
	e.srv = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: "1.0.0"}, opts)
	addBasicTools(e.srv, o.ExtraTools, o.Tools)
	if o.Prompts {
		addPrompts(e.srv)
	}
	if o.Resources {
		e.addResources()
	}
	if o.TwoWay {
		addTwoWayTools(e.srv, o.Name, o.clock())
		addClientRequestTools(e.srv)
	}
	return e
}

// Serve runs the example server on t until the client goes away or ctx
// ends, with the --update-every timer (on o.Clock) running meanwhile;
// the timer is stopped and waited for before Serve returns.
func Serve(ctx context.Context, o Options, t mcp.Transport) error {
	e := build(o)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if e.counter != nil && o.UpdateEvery > 0 {
		ticker := o.clock().TickerFunc(ctx, o.UpdateEvery, func() error {
			e.touchCounter(ctx)
			return nil
		}, "exampleserver", "resource-updates")
		defer func() {
			cancel()
			_ = ticker.Wait()
		}()
	}
	return e.srv.Run(ctx, t)
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
	return Serve(ctx, o, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
