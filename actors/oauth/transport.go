package oauth

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Transport gives an HTTP client the OAuth handling that the go-sdk's
// streamable transport has built in, for transports that have none (the
// HTTP+SSE transport of the 2024-11-05 revision): every request for
// origin carries h's token, and a 401, or a 403 with a challenge, goes to
// h.Authorize (a refresh, a client-credentials token, a step-up, or a
// NeedsAuthError), after which the request is sent once more, as the
// streamable transport does. An error from Authorize is the request's
// error. Requests for another origin pass through untouched: the token
// never leaves the server's origin.
func Transport(h auth.OAuthHandler, origin string, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &bearerTransport{h: h, origin: origin, next: next}
}

type bearerTransport struct {
	h      auth.OAuthHandler
	origin string
	next   http.RoundTripper
}

func (t *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme+"://"+req.URL.Host != t.origin {
		return t.next.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // the caller's request stays as it was
	if err := replayable(req); err != nil {
		closeBody(req)
		return nil, err
	}
	first, err := t.withToken(req)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.next.RoundTrip(first)
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return resp, err
	}
	if err := t.h.Authorize(req.Context(), first, resp); err != nil { // closes resp.Body
		return nil, err
	}
	retry, err := t.withToken(req)
	if err != nil {
		return nil, err
	}
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	return t.next.RoundTrip(retry)
}

// withToken is a copy of req carrying the handler's current token, if it
// has one.
func (t *bearerTransport) withToken(req *http.Request) (*http.Request, error) {
	out := req.Clone(req.Context())
	ts, err := t.h.TokenSource(req.Context())
	if err != nil || ts == nil {
		return out, err
	}
	tok, err := ts.Token()
	if err != nil {
		return nil, err
	}
	if tok != nil && tok.AccessToken != "" {
		out.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	return out, nil
}

// replayable makes sure req's body can be sent twice.
func replayable(req *http.Request) error {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return nil
}
