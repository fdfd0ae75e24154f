package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/coder/quartz"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

// apiClient talks to one daemon's HTTP API.
type apiClient struct {
	addr  string // as the user gave it, for messages
	base  string // scheme://host:port
	token string
	http  *http.Client
	clock quartz.Clock // times the wait before a throttled request is sent again
}

// newAPIClient talks to the daemon at addr through dialer, which checks
// who is at the other end before anything is sent.
func newAPIClient(addr, token string, dialer *daemonDialer) *apiClient {
	base := addr
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	tr := &http.Transport{
		Proxy:                 nil, // the daemon is local; never send its token through a proxy
		DialContext:           dialer.DialContext,
		ResponseHeaderTimeout: 0, // calls and resyncs take as long as they take; the context bounds them
	}
	return &apiClient{addr: addr, base: strings.TrimSuffix(base, "/"), token: token, http: &http.Client{Transport: tr}, clock: quartz.NewReal()}
}

// close releases idle connections.
func (c *apiClient) close() { c.http.CloseIdleConnections() }

// unreachableError: nothing answered at the address.
type unreachableError struct {
	addr string
	err  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("cannot reach the daemon at %s (%s): is `mcpvisor run` running? (set --addr or MCPVISOR_ADDR)", e.addr, dialReason(e.err))
}

// dialReason is the short cause of a failed dial: "connection refused",
// "no such host", "i/o timeout".
func dialReason(err error) string {
	var errno syscall.Errno
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &errno):
		return errno.Error()
	case errors.As(err, &dns):
		return dns.Err
	case errors.As(err, &op) && op.Err != nil:
		return op.Err.Error()
	}
	return err.Error()
}

func (e *unreachableError) Unwrap() error { return e.err }

// goneError: the daemon went away while the command was following it.
type goneError struct{ addr string }

func (e *goneError) Error() string {
	return fmt.Sprintf("the daemon at %s ended the stream: it stopped (start it again with `mcpvisor run`)", e.addr)
}

// send makes one request and returns the response, or an error that says
// what to do: the daemon is unreachable, wants a token, or answered an
// error. body, when not nil, is sent as JSON. A request the daemon
// throttled (429: someone is guessing tokens, and this one was not even
// looked at) is sent once more after its Retry-After, at most
// maxRetryWait.
func (c *apiClient) send(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	var payload []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		payload = b
	}
	res, err := c.sendOnce(ctx, method, path, payload, accept)
	if err == nil && res.StatusCode == http.StatusTooManyRequests {
		wait := retryWait(res.Header)
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // the connection can be reused
		res.Body.Close()
		if err := c.pause(ctx, wait); err != nil {
			return nil, err
		}
		res, err = c.sendOnce(ctx, method, path, payload, accept)
	}
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 300 {
		defer res.Body.Close()
		return nil, c.errorFrom(res)
	}
	return res, nil
}

// sendOnce makes one request; payload, when not nil, is its JSON body.
func (c *apiClient) sendOnce(ctx context.Context, method, path string, payload []byte, accept string) (*http.Response, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("daemon address %q: %w", c.addr, err)
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var untrusted *untrustedDaemonError
		if errors.As(err, &untrusted) {
			return nil, untrusted
		}
		if isUnreachable(err) {
			return nil, &unreachableError{addr: c.addr, err: err}
		}
		return nil, fmt.Errorf("talking to the daemon at %s: %w", c.addr, err)
	}
	return res, nil
}

// isUnreachable: the connection could not be made at all.
func isUnreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial"
}

// errorFrom turns an error answer into an error that says what to do.
func (c *apiClient) errorFrom(res *http.Response) error {
	var body httpapi.ErrorBody
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err := json.Unmarshal(b, &body); err != nil || body.Error == "" {
		return fmt.Errorf("the daemon at %s answered %s without an mcpvisor error: is it an mcpvisor daemon?", c.addr, res.Status)
	}
	if res.StatusCode == http.StatusTooManyRequests {
		return fmt.Errorf("the daemon at %s turned the request away twice, its token not checked: it is slowing down wrong tokens, "+
			"so some program is guessing them; try again in a few seconds, and run the CLI as the daemon's user (whose requests are never slowed)", c.addr)
	}
	if res.StatusCode == http.StatusUnauthorized {
		if c.token == "" {
			return fmt.Errorf("the daemon at %s needs a token and none was found: run as the daemon's user (it reads ~/.local/state/mcpvisor/token), "+
				"or set --token-file or MCPVISOR_TOKEN to the token it was started with", c.addr)
		}
		return fmt.Errorf("the daemon at %s refused the token: set --token-file or MCPVISOR_TOKEN to the token it was started with", c.addr)
	}
	return errors.New(body.Error)
}

// do makes one request and reads its JSON answer into out (when not nil);
// it returns the raw answer too.
func (c *apiClient) do(ctx context.Context, method, path string, body, out any) ([]byte, error) {
	res, err := c.send(ctx, method, path, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer from %s: %w", c.addr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, fmt.Errorf("the daemon at %s answered something else than the API's JSON (%v): is it an mcpvisor daemon of the same version?", c.addr, err)
		}
	}
	return raw, nil
}
