package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
)

// errCrossOriginRedirect refuses a redirect that would carry configured
// headers to another origin.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// errCrossOriginEndpoint refuses a request to another origin than the
// configured URL's, which only an SSE server's endpoint event can cause.
var errCrossOriginEndpoint = errors.New("the server's SSE endpoint event points at another origin: refused (tool arguments would go there)")

// originBoundClient returns an HTTP client, on a transport of its own, that
// adds headers only to requests for endpoint's own origin and refuses
// cross-origin redirects; with sameOriginOnly it refuses every request for
// another origin.
func originBoundClient(endpoint string, headers map[string]string, sameOriginOnly bool) (*http.Client, *http.Transport, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, nil, fmt.Errorf("parse url: %w", err)
	}
	origin := u.Scheme + "://" + u.Host
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{
		Transport: &headerTransport{origin: origin, headers: headers, sameOriginOnly: sameOriginOnly, next: base},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Scheme+"://"+req.URL.Host != origin {
				return errCrossOriginRedirect
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		},
	}, base, nil
}

type headerTransport struct {
	origin         string
	headers        map[string]string
	sameOriginOnly bool
	next           http.RoundTripper
	refused        atomic.Pointer[error] // the first request refused
}

func guardOf(hc *http.Client) *headerTransport {
	t, _ := hc.Transport.(*headerTransport)
	return t
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	same := req.URL.Scheme+"://"+req.URL.Host == t.origin
	if !same && t.sameOriginOnly {
		closeBody(req) // a RoundTripper closes the body, even on error
		err := fmt.Errorf("%w (%s://%s)", errCrossOriginEndpoint, req.URL.Scheme, req.URL.Host)
		t.refused.CompareAndSwap(nil, &err)
		return nil, err
	}
	if len(t.headers) > 0 && same {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(req)
}
