package verbatim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBody bounds what is kept of one response to find a result in: the
// go-sdk's own bound on one message. A longer one is not captured (and
// the go-sdk refuses it anyway).
const maxBody = mcp.DefaultMaxLineLength

// httpCapture is a streamable HTTP client's round tripper: a POSTed call
// under a Capture context has its response body watched for the
// response to it, as a JSON body or as an event of an SSE stream. It
// reads the body only as the go-sdk does, before the go-sdk parses what
// it read.
//
// Every SSE stream (a POST's, or the GET stream of requests outside
// calls) is also read for the server's requests that RequestsKept names,
// whose params go to requests.
type httpCapture struct {
	base     http.RoundTripper
	requests *Recent
}

func (t *httpCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	slot := slotOf(req.Context())
	watchCall := slot != nil && req.Method == http.MethodPost && req.GetBody != nil
	if !watchCall && t.requests == nil {
		return t.base.RoundTrip(req)
	}
	w := &watcher{requests: t.requests, done: !watchCall}
	ok := false
	if watchCall {
		w.id, w.method, ok = postedCall(req)
		w.slot = slot
		w.done = !ok
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || (!ok && t.requests == nil) {
		return resp, err
	}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "application/json") && !w.done:
		resp.Body = &jsonBody{ReadCloser: resp.Body, w: w}
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &sseBody{ReadCloser: resp.Body, w: w}
	}
	return resp, nil
}

// postedCall is the id and method of the call req posts, if it posts one.
func postedCall(req *http.Request) (jsonrpc.ID, string, bool) {
	body, err := req.GetBody()
	if err != nil {
		return jsonrpc.ID{}, "", false
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxBody))
	if err != nil {
		return jsonrpc.ID{}, "", false
	}
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(data, &m) != nil || m.ID == nil || m.Method == "" {
		return jsonrpc.ID{}, "", false
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return jsonrpc.ID{}, "", false
	}
	return id, m.Method, true
}

// watcher records the result of the one response it waits for (done
// once seen, or if it waits for none), and the params of the requests
// requests keeps.
type watcher struct {
	id       jsonrpc.ID
	method   string
	slot     *Slot
	done     bool
	requests *Recent
}

// idle: nothing more to look for.
func (w *watcher) idle() bool { return w.done && w.requests == nil }

// see looks at one JSON-RPC message.
func (w *watcher) see(data []byte) {
	if w.idle() || w.done && !mayBeKept(data) {
		return
	}
	var m struct {
		ID     any             `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.ID == nil {
		return
	}
	if m.Method != "" {
		if w.requests != nil && RequestsKept[m.Method] {
			w.requests.Add(m.Method, m.Params)
		}
		return
	}
	if w.done {
		return
	}
	if id, err := jsonrpc.MakeID(m.ID); err != nil || id != w.id {
		return
	}
	w.done = true
	if m.Error == nil && m.Result != nil {
		w.slot.record(w.method, m.Result)
	}
}

// jsonBody keeps a JSON body as it is read, and looks at it at its end
// (the go-sdk reads the body to its end before it decodes it).
type jsonBody struct {
	io.ReadCloser
	w    *watcher
	data []byte
	over bool
}

func (b *jsonBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.over {
		if len(b.data)+n > maxBody {
			b.over, b.data = true, nil
		} else {
			b.data = append(b.data, p[:n]...)
		}
	}
	if err == io.EOF && !b.over {
		b.w.see(b.data)
		b.data = nil
	}
	return n, err
}

// sseBody follows an SSE body line by line; at the blank line that ends
// an event, it looks at the event's data.
type sseBody struct {
	io.ReadCloser
	w          *watcher
	line, data []byte
	over       bool
}

func (b *sseBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.w.idle() {
		b.feed(p[:n])
	}
	return n, err
}

func (b *sseBody) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.line = b.bounded(b.line, p)
			return
		}
		b.line = b.bounded(b.line, p[:i])
		p = p[i+1:]
		line := bytes.TrimSuffix(b.line, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(b.data) > 0 && !b.over {
				b.w.see(b.data)
			}
			b.data, b.over = b.data[:0], false
		case bytes.HasPrefix(line, []byte("data:")):
			if len(b.data) > 0 {
				b.data = b.bounded(b.data, []byte("\n"))
			}
			b.data = b.bounded(b.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" ")))
		}
		b.line = b.line[:0]
	}
}

// bounded is buf with p appended, unless that passes maxBody: then the
// event is given up (over) and buf is left as it was.
func (b *sseBody) bounded(buf, p []byte) []byte {
	if len(buf)+len(p) > maxBody {
		b.over = true
		return buf
	}
	return append(buf, p...)
}

// mayBeKept: data may be a request RequestsKept names (it has the
// method's name in it). An SSE stream's other events (results,
// notifications) are not decoded for nothing.
func mayBeKept(data []byte) bool {
	for method := range RequestsKept {
		if bytes.Contains(data, []byte(method)) {
			return true
		}
	}
	return false
}
