package ndjson_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/internal/ndjson"
)

// reading returns a Conn reading input, which then ends.
func reading(input string) *ndjson.Conn {
	return ndjson.NewConn(io.NopCloser(strings.NewReader(input)), nopWriteCloser{io.Discard})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// readAll reads messages until the input ends, and returns them encoded
// again, one per string, with the error that ended reading.
func readAll(t *testing.T, c *ndjson.Conn) ([]string, error) {
	t.Helper()
	var got []string
	for {
		msg, err := c.Read(actorstest.Context(t))
		if err != nil {
			return got, err
		}
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
}

func TestConn_ReadsEveryKindOfMessage(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}
{"jsonrpc":"2.0","id":"a","result":{"ok":true}}
{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no such method"}}
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}
`
	got, err := readAll(t, reading(in))
	if err != io.EOF {
		t.Fatalf("reading ended with %v, want io.EOF", err)
	}
	want := strings.Split(strings.TrimSpace(in), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConn_ReadsTheMessageTypesTheGoSDKDoes(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m","data":{"k":1}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":""}` + "\n"
	for i, line := range strings.SplitAfter(in, "\n")[:4] {
		ours, err := reading(line).Read(actorstest.Context(t))
		if err != nil {
			t.Fatal(err)
		}
		sdk, err := jsonrpc.DecodeMessage([]byte(strings.TrimSpace(line)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ours, sdk) {
			t.Errorf("message %d: read %#v, the go-sdk decodes %#v", i+1, ours, sdk)
		}
	}
}

// Blank lines, CRLF line ends, a batch, a value pretty-printed over
// several lines, a line longer than the read buffer and a last message
// with no newline are all read, as the go-sdk's own connection reads them.
func TestConn_ReadsWhatTheGoSDKAccepts(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "\n  \r\n" +
		`{"jsonrpc":"2.0","method":"a"}` + "\r\n" +
		`[{"jsonrpc":"2.0","method":"b"},{"jsonrpc":"2.0","id":1,"result":{}}]` + "\n" +
		"{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"c\",\n  \"params\": {\"s\": \"with } and \\\" inside\"}\n}\n" +
		`{"jsonrpc":"2.0","method":"d","params":{"s":"` + long + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"e"}`
	got, err := readAll(t, reading(in))
	if err != io.EOF {
		t.Fatalf("reading ended with %v, want io.EOF", err)
	}
	want := []string{
		`{"jsonrpc":"2.0","method":"a"}`,
		`{"jsonrpc":"2.0","method":"b"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"c","params":{"s": "with } and \" inside"}}`,
		`{"jsonrpc":"2.0","method":"d","params":{"s":"` + long + `"}}`,
		`{"jsonrpc":"2.0","method":"e"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("read %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if compact(t, got[i]) != compact(t, want[i]) {
			t.Errorf("message %d: read %.80s, want %.80s", i+1, got[i], want[i])
		}
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%.80s: %v", s, err)
	}
	return b.String()
}

// What a server prints where a message belongs ends the connection with
// an error naming the line and its length, never its text; a log line that
// opens a bracket fails at once, not after waiting for lines to close it.
func TestConn_ALineThatIsNotJSONRPCSaysWhich(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"text", `{"jsonrpc":"2.0","method":"a"}` + "\nthis is not JSON-RPC\n",
			`line 2 is not a JSON-RPC message (20 bytes, not shown as they may hold a secret): invalid character 'h'`},
		{"bracketed log line", "[INFO] server starting on stdio\n",
			`line 1 is not a JSON-RPC message (31 bytes, not shown as they may hold a secret): invalid character 'I'`},
		{"another version", `{"jsonrpc":"1.0","id":1,"result":{}}` + "\n", `jsonrpc is "1.0", not "2.0"`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}` + "\n", "a response with no id"},
		{"empty batch", "[]\n", "an empty batch"},
		{"cut short", `{"jsonrpc":"2.0",` + "\n", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The input stays open: an error must not wait for more.
			r, w := io.Pipe()
			defer w.Close()
			go func() {
				_, _ = io.WriteString(w, tc.in)
				if tc.name == "cut short" {
					_ = w.Close()
				}
			}()
			c := ndjson.NewConn(r, nopWriteCloser{io.Discard})
			ctx := actorstest.Context(t)
			errc := make(chan error, 1)
			go func() {
				for {
					if _, err := c.Read(ctx); err != nil {
						errc <- err
						return
					}
				}
			}()
			select {
			case err := <-errc:
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %q, want %q in it", err, tc.want)
				}
			case <-ctx.Done():
				_ = r.Close()
				t.Fatal("Read waited for more input")
			}
		})
	}
}

// A line that is not JSON-RPC shows none of its text in the error, which
// reaches the server's LastError: the error was cut to 60 bytes before it
// was redacted, so a secret the cut fell inside left its first bytes
// (too few for the redactor to know them).
func TestConn_ALineThatIsNotJSONRPCShowsNoneOfIt(t *testing.T) {
	const secret = "ghp_PLANTEDSECRETVALUE0123456789"
	line := "Starting with token " + strings.Repeat(".", 60-len("Starting with token ")-8) + secret + "\n"
	c := ndjson.NewConn(io.NopCloser(strings.NewReader(line)), nopWriteCloser{io.Discard})
	_, err := c.Read(actorstest.Context(t))
	if err == nil {
		t.Fatal("a line that is not JSON-RPC was read")
	}
	for _, part := range []string{"Starting", secret[:8]} {
		if strings.Contains(err.Error(), part) {
			t.Errorf("error %q shows %q of the line", err, part)
		}
	}
	if !strings.Contains(err.Error(), "line 1 is not a JSON-RPC message") {
		t.Errorf("error %q does not name the line", err)
	}
}

// endless is a message that never ends: "[1,1,1,..." forever.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		switch {
		case e.n == 0:
			p[i] = '['
		case e.n%2 == 1:
			p[i] = '1'
		default:
			p[i] = ','
		}
		e.n++
	}
	return len(p), nil
}

// A message over the bound ends reading with an error that says it was
// cut there and names the bound, and Broken keeps it: the go-sdk closes
// the connection without passing the error on, and the session used to
// report the SIGTERM that followed ("signal: terminated") instead.
func TestConn_AMessageBeyondTheBoundEndsTheConnection(t *testing.T) {
	c := ndjson.NewConn(io.NopCloser(&endless{}), nopWriteCloser{io.Discard})
	if c.Broken() != nil {
		t.Fatalf("broken before reading: %v", c.Broken())
	}
	_, err := c.Read(actorstest.Context(t))
	if !errors.Is(err, ndjson.ErrMessageTooLong) {
		t.Fatalf("error %v, want ErrMessageTooLong", err)
	}
	for _, want := range []string{fmt.Sprintf("longer than %d bytes (16 MiB)", ndjson.MaxMessage), "cut"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if broken := c.Broken(); !errors.Is(broken, ndjson.ErrMessageTooLong) {
		t.Fatalf("Broken() = %v, want the over-long message", broken)
	}
}

// Reading that ends with the stream, cleanly or cut short by an exit, is
// not the stream's fault: Broken stays nil, so the exit is what a
// session reports.
func TestConn_AnEndIsNotBroken(t *testing.T) {
	for _, input := range []string{`{"jsonrpc":"2.0","method":"m"}` + "\n", `{"jsonrpc":"2.0",`} {
		c := reading(input)
		if _, err := readAll(t, c); c.Broken() != nil {
			t.Errorf("input %q ended with %v; Broken() = %v, want nil", input, err, c.Broken())
		}
	}
}

// Writes from many goroutines arrive as whole lines, each one message.
func TestConn_ConcurrentWritesStayWholeLines(t *testing.T) {
	ctx := actorstest.Context(t)
	a, b := net.Pipe()
	writer := ndjson.NewConn(a, a)
	reader := ndjson.NewConn(b, b)
	defer writer.Close()
	defer reader.Close()
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				params := json.RawMessage(fmt.Sprintf(`{"g":%d,"i":%d,"pad":%q}`, g, i, strings.Repeat("p", 1000*i)))
				if err := writer.Write(ctx, &jsonrpc.Request{Method: "n", Params: params}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	seen := map[string]bool{}
	for range goroutines * each {
		msg, err := reader.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ G, I int }
		if err := json.Unmarshal(msg.(*jsonrpc.Request).Params, &p); err != nil {
			t.Fatal(err)
		}
		seen[fmt.Sprint(p.G, p.I)] = true
	}
	wg.Wait()
	if len(seen) != goroutines*each {
		t.Fatalf("%d distinct messages, want %d", len(seen), goroutines*each)
	}
}

type closeCounter struct {
	io.Reader
	io.Writer
	closes int
}

func (c *closeCounter) Close() error { c.closes++; return nil }

func TestConn_CloseClosesBothOnce(t *testing.T) {
	r, w := &closeCounter{Reader: strings.NewReader("")}, &closeCounter{Writer: io.Discard}
	c := ndjson.NewConn(r, w)
	for range 3 {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if r.closes != 1 || w.closes != 1 {
		t.Fatalf("reader closed %d times, writer %d, want once each", r.closes, w.closes)
	}
}

// A go-sdk client on a Conn talks to a go-sdk server on the go-sdk's own
// stdio connection.
func TestConn_AGoSDKClientTalksToAGoSDKServer(t *testing.T) {
	ctx := actorstest.Context(t)
	a, b := net.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	ss, err := srv.Connect(ctx, &mcp.IOTransport{Reader: a, Writer: a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &ndjson.Transport{Reader: b, Writer: b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"m": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `{"m":"hi"}` {
		t.Fatalf("echo = %s", got)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ss.Wait(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("server session: %v", err)
	}
}

// Reading a progress notification allocates about what it holds, not the
// tens of kilobytes the go-sdk's own connection does (issue: relaying a
// chatty server's progress cost more in garbage collection than in work).
func TestConn_ReadingAllocatesLittle(t *testing.T) {
	const line = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"call-1","progress":7,"total":1000}}` + "\n"
	const n = 1000
	c := reading(strings.Repeat(line, n))
	ctx := actorstest.Context(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 2048 {
		t.Fatalf("%d bytes allocated per message read, want at most 2048", per)
	}
}

// The calls of a batch are answered as one batch, once the last is
// answered; what else is written meanwhile goes out at once.
func TestConn_ABatchIsAnsweredAsOneBatch(t *testing.T) {
	ctx := actorstest.Context(t)
	var out bytes.Buffer
	c := ndjson.NewConn(io.NopCloser(strings.NewReader(
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"two","method":"b"}]`+"\n")),
		nopWriteCloser{&out})
	var ids []jsonrpc.ID
	for range 3 {
		msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if req := msg.(*jsonrpc.Request); req.IsCall() {
			ids = append(ids, req.ID)
		}
	}
	write := func(msg jsonrpc.Message) {
		t.Helper()
		if err := c.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	write(&jsonrpc.Response{ID: ids[1], Result: json.RawMessage(`{"b":2}`)})
	if out.Len() != 0 {
		t.Fatalf("wrote %q before the batch was answered", out.String())
	}
	write(&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{}`)})
	write(&jsonrpc.Response{ID: ids[0], Result: json.RawMessage(`{"a":1}`)})
	want := `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n" +
		`[{"jsonrpc":"2.0","id":"two","result":{"b":2}},{"jsonrpc":"2.0","id":1,"result":{"a":1}}]` + "\n"
	if out.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", out.String(), want)
	}
	// The batch is done: a later response with a reused id is its own.
	out.Reset()
	write(&jsonrpc.Response{ID: ids[0], Result: json.RawMessage(`{}`)})
	if got := out.String(); got != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
		t.Fatalf("wrote %q", got)
	}
}

func TestConn_ABatchThatRepeatsAnIDIsRefused(t *testing.T) {
	c := reading(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]` + "\n")
	_, err := c.Read(actorstest.Context(t))
	if err == nil || !strings.Contains(err.Error(), "repeats the id 1") {
		t.Fatalf("error %v, want the repeated id named", err)
	}
}
