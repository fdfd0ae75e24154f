package cli

import (
	"context"
	"strings"
	"testing"
)

// Which OTEL_* settings turn tracing on, which off, and which are refused.
func TestTracerFromEnv_StandardVariablesDecide(t *testing.T) {
	t.Parallel()
	const endpoint = "http://127.0.0.1:1"
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{name: "nothing set", env: nil},
		{name: "endpoint", env: map[string]string{envEndpoint: endpoint}, want: true},
		{name: "traces endpoint", env: map[string]string{envTracesEndpoint: endpoint + "/v1/traces"}, want: true},
		{name: "exporter otlp alone", env: map[string]string{envTracesExporter: "otlp"}, want: true},
		{name: "exporter none beats an endpoint", env: map[string]string{envTracesExporter: "none", envEndpoint: endpoint}},
		{name: "sdk disabled", env: map[string]string{envSDKDisabled: "true", envEndpoint: endpoint}},
		{name: "http/protobuf", env: map[string]string{envEndpoint: endpoint, envProtocol: "http/protobuf"}, want: true},
		{name: "grpc refused", env: map[string]string{envEndpoint: endpoint, envProtocol: "grpc"}, wantErr: "http/protobuf only"},
		{name: "traces protocol wins", env: map[string]string{envEndpoint: endpoint, envProtocol: "grpc", envTracesProtocol: "http/protobuf"}, want: true},
		{name: "other exporter refused", env: map[string]string{envTracesExporter: "zipkin"}, wantErr: "otlp only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tp, err := tracerFromEnv(context.Background(), func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tp != nil; got != tc.want {
				t.Fatalf("tracing on = %v, want %v", got, tc.want)
			}
			if tp != nil {
				if err := tp.Shutdown(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
