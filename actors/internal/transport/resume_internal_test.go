package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/quartz"
)

// cutReader yields data, then err (a cut connection, or io.EOF).
type cutReader struct {
	r   io.Reader
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		err = c.err
	}
	return n, err
}

func (c *cutReader) Close() error { return nil }

// A stream that ends between events after being open streamMinLife ends
// with a synthetic id standing for the server's last one; one cut inside
// an event, or ended sooner, is passed through as it is.
func TestProgressBody_EndsLongStreamsWithASyntheticID(t *testing.T) {
	t.Parallel()
	cut := errors.New("connection reset")
	tests := []struct {
		name     string
		stream   string
		open     time.Duration
		wantReal string // "" with wantSynth: stands for no id
		synth    bool
	}{
		{"quiet stream", "retry: 10\n\n: ok\n\n", time.Second, "", true},
		{"after events", ": ok\n\nid: s_0\ndata: {}\n\nid: s_1\r\ndata: {}\r\n\r\n", 2 * time.Second, "s_1", true},
		{"cut inside an event", "id: s_0\ndata: {}\n\nid: s_1\ndata: {\"a\"", time.Minute, "", false},
		{"short-lived", ": ok\n\n", time.Second - time.Millisecond, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := quartz.NewMock(t)
			rt := newResumeTransport(nil, clock)
			b := &progressBody{body: &cutReader{r: strings.NewReader(tt.stream), err: cut}, t: rt, ctx: context.Background(),
				opened: clock.Now(), boundary: true}
			clock.Advance(tt.open)
			got, err := io.ReadAll(b)
			if !errors.Is(err, cut) {
				t.Fatalf("err = %v, want the cut", err)
			}
			extra, ok := strings.CutPrefix(string(got), tt.stream)
			if !ok {
				t.Fatalf("stream changed: %q", got)
			}
			if !tt.synth {
				if extra != "" {
					t.Fatalf("synthetic event %q, want none", extra)
				}
				return
			}
			id, ok := strings.CutPrefix(extra, "id: ")
			id, ok2 := strings.CutSuffix(id, "\n\n")
			if !ok || !ok2 {
				t.Fatalf("tail %q, want one id-only event", extra)
			}
			if real, known := rt.lookup(id); !known || real != tt.wantReal {
				t.Fatalf("%s stands for %q (known %v), want %q", id, real, known, tt.wantReal)
			}
		})
	}
}

// A reconnection that sends a synthetic id sends the server's own id
// instead, or none; an id it never made is refused.
func TestResumeTransport_SendsTheServersID(t *testing.T) {
	t.Parallel()
	seen := make(chan []string, 4)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Values("Last-Event-ID")
	}))
	defer ts.Close()
	rt := newResumeTransport(http.DefaultTransport, quartz.NewMock(t))
	get := func(id string) error {
		req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
		req.Header.Set("Last-Event-ID", id)
		res, err := rt.RoundTrip(req)
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	for real, want := range map[string][]string{"s_7": {"s_7"}, "": nil} {
		if err := get(rt.remember(real)); err != nil {
			t.Fatal(err)
		}
		if got := <-seen; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("server got Last-Event-ID %q, want %q", got, want)
		}
	}
	if err := get(syntheticIDPrefix + "999"); err == nil {
		t.Error("an unknown synthetic id was sent on")
	}
}
