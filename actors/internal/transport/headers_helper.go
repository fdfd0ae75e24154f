package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// headersHelper runs an entry's headersHelper (Claude Code's field) and
// adds the headers it prints to every request for the server's origin. It
// runs before the first request and again after a 401, once per 401, and
// the request is then sent once more. It runs on the goroutine of the
// request that needs it (the session's lifeline during the handshake, the
// SDK's for later ones), never in an actor's Receive, under the request's
// context, so a stopped session kills it.
type headersHelper struct {
	spec    messages.ServerSpec
	environ []string
	learn   func(...string)
	origin  string
	next    http.RoundTripper

	mu      sync.Mutex // serialises runs; guards headers
	headers map[string]string
	runs    int
}

// UseHeadersHelper has the entry's headersHelper add the headers of
// every request to the server's origin, when the entry has one and the
// connection is HTTP or SSE (environ is the helper's environment). learn,
// when not nil, is given the secrets of the headers the helper prints
// before any request carries them: secrets only known at run time (a
// bearer token), which the session's redactors must know before the
// server can echo them back.
func (c *Conn) UseHeadersHelper(spec messages.ServerSpec, environ []string, learn func(...string)) {
	if spec.HeadersHelper == "" || c.guard == nil {
		return
	}
	c.guard.next = &headersHelper{spec: spec, environ: environ, learn: learn, origin: c.guard.origin, next: c.guard.next}
}

func (h *headersHelper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme+"://"+req.URL.Host != h.origin {
		return h.next.RoundTrip(req)
	}
	headers, err := h.current(req.Context(), 0)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := h.next.RoundTrip(withHeaders(req, headers))
	if err != nil || resp.StatusCode != http.StatusUnauthorized || req.GetBody == nil && req.Body != nil && req.Body != http.NoBody {
		return resp, err
	}
	// 401: the headers may have expired. Run the helper again and send
	// the request once more.
	seen := h.runsSoFar()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	_ = resp.Body.Close()
	headers, err = h.current(req.Context(), seen)
	if err != nil {
		return nil, err
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return h.next.RoundTrip(withHeaders(retry, headers))
}

func (h *headersHelper) runsSoFar() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs
}

// current returns the helper's headers, running it when it has not run
// yet, or has run only `stale` times (a 401 seen after that many runs):
// concurrent requests that all got a 401 run it once.
func (h *headersHelper) current(ctx context.Context, stale int) (map[string]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.headers != nil && h.runs > stale {
		return h.headers, nil
	}
	headers, err := runHeadersHelper(ctx, h.spec, h.environ)
	h.runs++
	if err != nil {
		return nil, err
	}
	if h.learn != nil { // as the entry's own headers are: each value, and the credential after its scheme
		h.learn(config.SecretsOf(messages.ServerSpec{Headers: headers})...)
	}
	h.headers = headers
	return headers, nil
}

// runHeadersHelper runs the command with sh -c in the config file's
// folder, in its own process group (killed with it when ctx ends), and
// parses what it prints.
func runHeadersHelper(ctx context.Context, spec messages.ServerSpec, environ []string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", spec.HeadersHelper)
	cmd.Dir = filepath.Dir(spec.Source.Path)
	cmd.Env = append(append([]string(nil), environ...), "MCPVISOR_SERVER_NAME="+spec.Name, "MCPVISOR_SERVER_URL="+spec.URL)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = stdioWaitDelay
	var out limitedBuffer
	out.limit = config.MaxHelperOutputBytes + 1
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		// Neither its output nor its stderr is shown: either may hold
		// the secrets it exists to produce.
		if ctx.Err() != nil {
			return nil, fmt.Errorf("headersHelper did not finish: %w", ctx.Err())
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("headersHelper failed: %s", exit.ProcessState)
		}
		return nil, fmt.Errorf("headersHelper could not run: %w", err)
	}
	headers, err := config.ParseHelperHeaders(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("headersHelper %w", err)
	}
	return headers, nil
}

// withHeaders is req with headers set (a clone when there are any).
func withHeaders(req *http.Request, headers map[string]string) *http.Request {
	if len(headers) == 0 {
		return req
	}
	req = req.Clone(req.Context())
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// limitedBuffer keeps at most limit bytes and drops the rest, so a helper
// that prints without end cannot grow mcpvisor's memory.
type limitedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.Len(); room < len(p) {
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}
