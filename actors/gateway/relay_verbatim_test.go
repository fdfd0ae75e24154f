package gateway_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/actors/internal/verbatim"
	"github.com/mcpvisor/mcpvisor/messages"
)

// formSchema is what the form server asks for: its properties out of
// alphabetical order (the order of the form's fields), one with a
// default the client does not answer.
const formSchema = `{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"number","default":3.14}}}`

// formAnswer is the client's answer, its keys out of alphabetical order
// too, without "mid".
const formAnswer = `{"action":"accept","content":{"zeta":"Ada","alpha":true}}`

// wire records the raw params of the requests and the raw results of
// the responses a connection reads.
type wire struct {
	mu       sync.Mutex
	params   []json.RawMessage
	results  []json.RawMessage
	ofMethod string
	// legacy: the connection refuses server/discover, as a server of
	// 2025-11-25 does.
	legacy bool
}

func (w *wire) transport(t mcp.Transport, method string) mcp.Transport {
	w.ofMethod = method
	return &wireTransport{Transport: t, w: w}
}

func (w *wire) seen() (params, results []json.RawMessage) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]json.RawMessage(nil), w.params...), append([]json.RawMessage(nil), w.results...)
}

type wireTransport struct {
	mcp.Transport
	w *wire
}

func (t *wireTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &wireConn{Connection: c, w: t.w}, nil
}

type wireConn struct {
	mcp.Connection
	w *wire
}

func (c *wireConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if req, ok := msg.(*jsonrpc.Request); ok && c.w.legacy && req.Method == "server/discover" {
			// As a server of 2025-11-25 answers it: the client falls back
			// to initialize.
			refused := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}}
			if err := c.Connection.Write(ctx, refused); err != nil {
				return nil, err
			}
			continue
		}
		c.w.record(msg)
		return msg, err
	}
}

func (w *wire) record(msg jsonrpc.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.Method == w.ofMethod {
			w.params = append(w.params, append(json.RawMessage(nil), m.Params...))
		}
	case *jsonrpc.Response:
		if m.Result != nil {
			w.results = append(w.results, append(json.RawMessage(nil), m.Result...))
		}
	}
}

// formServer is a server whose tool "form" elicits formSchema; what its
// connection reads is recorded in upstream.
// It speaks 2025-11-25, where a server elicits on the connection (on
// 2026-07-28 it would return input requests).
func formServer(upstream *wire) func() (mcp.Transport, error) {
	upstream.legacy = true
	return func() (mcp.Transport, error) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "form", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "form", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "who?", RequestedSchema: json.RawMessage(formSchema)})
				if err != nil {
					return nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
			})
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), upstream.transport(st, "elicitation/create"), nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// rawAnswers is a client middleware that answers every elicitation with
// formAnswer, byte for byte (a go-sdk client's own answer would be
// marshaled with sorted keys).
func rawAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "elicitation/create" {
			return &rawResult{ElicitResult: &mcp.ElicitResult{}}, nil
		}
		return next(ctx, method, req)
	}
}

type rawResult struct{ *mcp.ElicitResult }

func (*rawResult) MarshalJSON() ([]byte, error) { return []byte(formAnswer), nil }

// formClient is a client that offers form elicitation and answers it
// with formAnswer; changed hears of tool list changes.
func formClient(changed chan<- struct{}) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, io.EOF // never called: rawAnswers answers first
		},
	})
	c.AddReceivingMiddleware(rawAnswers)
	return c
}

// An elicitation passes through the gateway as each side wrote it: the
// client gets the server's requestedSchema in the server's key order,
// and the server gets the client's answer byte for byte, without the
// defaults the go-sdk's ServerSession.Elicit fills in (mid: 3.14), on
// stdio and on streamable HTTP.
func TestRelay_ElicitationIsRelayedVerbatim(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ctx := actorstest.Context(t)
			var upstream, downstream wire
			mk := formServer(&upstream)
			r := startRelayRigDial(t, ctx, nil, func(messages.ServerSpec) (mcp.Transport, error) { return mk() })
			ct := gatewayTransport(t, ctx, r.gw, transport)
			changed := make(chan struct{}, 1)
			cs, err := formClient(changed).Connect(ctx, downstream.transport(ct, "elicitation/create"), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			waitTool(t, ctx, cs, changed, "demo__form")
			if got := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__form"}); got != "accept" {
				t.Fatalf("the form tool answered %q, want accept", got)
			}
			if transport == "stdio" { // the HTTP client's connection cannot be wrapped
				params, _ := downstream.seen()
				if len(params) != 1 {
					t.Fatalf("the client got %d elicitations, want 1", len(params))
				}
				if got := string(verbatim.Field(params[0], "requestedSchema")); got != formSchema {
					t.Errorf("the client got requestedSchema\n%s\nwant it as the server sent it\n%s", got, formSchema)
				}
			}
			_, results := upstream.seen()
			if !contains(results, formAnswer) {
				t.Errorf("the server got answers %s, want the client's %s byte for byte", results, formAnswer)
			}
		})
	}
}

func contains(raws []json.RawMessage, want string) bool {
	for _, r := range raws {
		if string(r) == want {
			return true
		}
	}
	return false
}

// gatewayTransport is a client transport to gw: over a pair of pipes to
// its ServeStdio, or over streamable HTTP to its Handler.
func gatewayTransport(t *testing.T, ctx context.Context, gw *gateway.Gateway, transport string) mcp.Transport {
	t.Helper()
	if transport == "http" {
		h, err := gw.Handler(gateway.HTTPOptions{NoAuth: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return &mcp.StreamableClientTransport{Endpoint: ts.URL + gateway.Path, HTTPClient: ts.Client(), MaxRetries: -1}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- gw.ServeStdio(ctx, inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		<-served
		outW.Close()
	})
	return &mcp.IOTransport{Reader: outR, Writer: inW}
}

// waitTool lists cs's tools, again at each change, until name is one of
// them.
func waitTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, changed <-chan struct{}, name string) {
	t.Helper()
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Name == name {
				return
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("tool %s never listed", name)
		}
	}
}

// inputFormServer is a server on 2026-07-28 whose tool "form" asks for
// formSchema as an input request, and answers, on the retry, with the
// content it got (its keys sorted: it is decoded).
func inputFormServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "form", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "form", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
					"who": &mcp.ElicitParams{Message: "who?", RequestedSchema: json.RawMessage(formSchema)},
				}, RequestState: "s"}, nil
			}
			content, err := json.Marshal(answer.Content)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(content)}}}, nil
		})
	return srv
}

// An input request (2026-07-28) that mcpvisor answers by asking an older
// client gets the client's answer too, without the schema's defaults.
func TestRelay_InputRequestAnswerHasNoDefaults(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	r := startRelayRig(t, ctx, nil, inputFormServer)
	changed := make(chan struct{}, 1)
	cs, err := formClient(changed).Connect(ctx, gatewayTransport(t, ctx, r.gw, "stdio"), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	waitTool(t, ctx, cs, changed, "demo__form")
	if got, want := call(t, ctx, cs, &mcp.CallToolParams{Name: "demo__form"}), `{"alpha":true,"zeta":"Ada"}`; got != want {
		t.Errorf("the server got content %s, want the client's %s", got, want)
	}
}
