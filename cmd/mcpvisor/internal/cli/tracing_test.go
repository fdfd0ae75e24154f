package cli_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/cli"
)

// otlpReceiver is an OTLP/HTTP collector on loopback that keeps the name
// of every span it receives.
type otlpReceiver struct {
	mu    sync.Mutex
	names []string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg coltracepb.ExportTraceServiceRequest
	if err != nil || req.URL.Path != "/v1/traces" || proto.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.names = append(r.names, s.Name)
			}
		}
	}
	r.mu.Unlock()
	w.Header().Set("Connection", "close") // the exporter keeps no idle connection behind
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

func (r *otlpReceiver) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, `run` traces: the connect of its
// one server reaches the collector by the time run has exited (the last
// spans are flushed on the way out). Not parallel: the exporter reads
// the process's environment.
func TestRun_OTLPEndpointExportsSpans(t *testing.T) {
	ctx := actorstest.Context(t)
	receiver := &otlpReceiver{}
	collector := httptest.NewServer(receiver)
	t.Cleanup(collector.Close)
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	}, nil))
	t.Cleanup(upstream.Close)
	config := filepath.Join(t.TempDir(), ".mcp.json")
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"type": "http", "url": upstream.URL}}})
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	env := stateEnv(t)
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.URL

	stdout := newLineReader()
	runCtx, interrupt := context.WithCancel(ctx)
	ran := make(chan int, 1)
	go func() {
		ran <- cli.Main(runCtx, []string{"run", "--config", config, "--listen", "off"},
			cli.IO{Stdout: stdout, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	for line := ""; !(strings.Contains(line, "remote") && strings.Contains(line, "→ ready")); {
		line = stdout.next(ctx, t)
	}
	interrupt()
	if code := <-ran; code != cli.ExitOK {
		t.Fatalf("run exit %d, want 0", code)
	}
	if got := receiver.received(); !slices.Contains(got, "connect remote") {
		t.Errorf("the collector received %v, want the span \"connect remote\"", got)
	}
}

// With OTEL_TRACES_EXPORTER=otlp and the traces endpoint, `serve` traces
// its gateway's requests: a client's tools/list over stdio reaches the
// collector once serve has exited (the client closed stdin). Not
// parallel, as above.
func TestServe_OTLPExportsGatewaySpans(t *testing.T) {
	ctx := actorstest.Context(t)
	receiver := &otlpReceiver{}
	collector := httptest.NewServer(receiver)
	t.Cleanup(collector.Close)
	config := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", collector.URL+"/v1/traces")
	env := stateEnv(t)
	env["OTEL_TRACES_EXPORTER"] = "otlp"
	env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = collector.URL + "/v1/traces"

	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	served := make(chan int, 1)
	go func() {
		defer stdoutW.Close()
		served <- cli.Main(ctx, []string{"serve", "--config", config},
			cli.IO{Stdin: stdinR, Stdout: stdoutW, Stderr: io.Discard, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdoutR, Writer: stdinW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_ = cs.Close() // closes serve's stdin: it stops
	if code := <-served; code != cli.ExitOK {
		t.Fatalf("serve exit %d, want 0", code)
	}
	if got := receiver.received(); !slices.Contains(got, "tools/list") {
		t.Errorf("the collector received %v, want the gateway's span \"tools/list\"", got)
	}
}
