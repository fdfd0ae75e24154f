package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap/zaptest"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
)

// testToken is the token of every test API that does not set its own;
// send and openEvents bear it unless given an Authorization header.
const testToken = "test-token-of-the-httpapi-tests-32+bytes"

// api serves opts (Fleet defaulting to a new fake, Token to testToken
// unless NoAuth) on an httptest server.
func api(t *testing.T, opts httpapi.Options) (*httptest.Server, *httpapi.Server) {
	t.Helper()
	if opts.Fleet == nil {
		opts.Fleet = &httpapitest.Fleet{}
	}
	if opts.Logger == nil {
		opts.Logger = zaptest.NewLogger(t)
	}
	if opts.Token == "" && !opts.NoAuth {
		opts.Token = testToken
	}
	srv, err := httpapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return ts, srv
}

// response is what a test looks at.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
}

func (r response) errorText(t *testing.T) string {
	t.Helper()
	var e httpapi.ErrorBody
	r.json(t, &e)
	if e.Error == "" {
		t.Fatalf("error body %q has no error text", r.body)
	}
	return e.Error
}

// request sends method path with body (sent as application/json unless a
// Content-Type header says otherwise) and extra headers ("Name: value").
func request(t *testing.T, ts *httptest.Server, method, path, body string, headers ...string) response {
	t.Helper()
	res, err := send(actorstest.Context(t), ts, method, path, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// send is request for any goroutine. It bears testToken unless headers
// set Authorization (to "" for none).
func send(ctx context.Context, ts *httptest.Server, method, path, body string, headers ...string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, ts.URL+path, rd)
	if err != nil {
		return response{}, err
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	setHeaders(req, headers)
	res, err := ts.Client().Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return response{code: res.StatusCode, header: res.Header, body: b}, err
}

// setHeaders sets each "Name: value" on req; an empty value removes the
// header.
func setHeaders(req *http.Request, headers []string) {
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		if v = strings.TrimSpace(v); v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got), run go test -update if the change is intended:\n%s", path, diff)
	}
}

// indent re-indents a JSON body for a readable golden file.
func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatalf("indent %q: %v", b, err)
	}
	return out.Bytes()
}

// sseEvent is one event, or comment, read from an event stream.
type sseEvent struct {
	id, event, data, comment string
}

// sseReader reads an event stream.
type sseReader struct {
	t  *testing.T
	rd *bufio.Reader
}

// openEvents opens GET path as an event stream, bearing testToken unless
// headers set Authorization; ctx ends it.
func openEvents(ctx context.Context, t *testing.T, url string, headers ...string) (*http.Response, *sseReader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	setHeaders(req, headers)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res, &sseReader{t: t, rd: bufio.NewReader(res.Body)}
}

// next returns the next event or comment; io.EOF when the stream ended.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	seen := false
	for {
		line, err := r.rd.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if seen {
				return ev, nil
			}
			continue
		}
		seen = true
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			ev.comment = value
		case "id":
			ev.id = value
		case "event":
			ev.event = value
		case "data":
			ev.data = value
		}
	}
}

// nextEvent skips comments and returns the next event.
func (r *sseReader) nextEvent() sseEvent {
	r.t.Helper()
	for {
		ev, err := r.next()
		if err != nil {
			r.t.Fatalf("reading the event stream: %v", err)
		}
		if ev.comment == "" {
			return ev
		}
	}
}

// nextComment returns the next comment; it fails on an event.
func (r *sseReader) nextComment() string {
	r.t.Helper()
	ev, err := r.next()
	if err != nil {
		r.t.Fatalf("reading the event stream: %v", err)
	}
	if ev.comment == "" {
		r.t.Fatalf("got event %+v, want a comment", ev)
	}
	return ev.comment
}
