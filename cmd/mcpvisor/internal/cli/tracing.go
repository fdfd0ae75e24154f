package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder/quartz"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpvisor/mcpvisor/actors"
)

// The OpenTelemetry variables that turn tracing on for run and serve.
const (
	envTracesExporter = "OTEL_TRACES_EXPORTER"
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envSDKDisabled    = "OTEL_SDK_DISABLED"
)

// tracingShutdownBound bounds the flush of the last spans on exit: an
// unreachable collector must not hold the process.
const tracingShutdownBound = 5 * time.Second

// tracerFromEnv is the trace pipeline the standard OTEL_* variables ask
// for, or nil for none. Tracing is on when OTEL_TRACES_EXPORTER is otlp,
// or when it is unset and an OTLP endpoint is (OTEL_EXPORTER_OTLP_ENDPOINT
// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); none, or OTEL_SDK_DISABLED=true,
// turns it off. Spans go over OTLP/HTTP (protobuf) in batches. lookup
// decides whether; the exporter, sampler, batcher and resource read the
// rest of their variables (headers, timeout, TLS files, compression,
// OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES) from the process's environment, as the SDK
// does.
func tracerFromEnv(ctx context.Context, lookup func(string) (string, bool)) (*sdktrace.TracerProvider, error) {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	if strings.EqualFold(get(envSDKDisabled), "true") {
		return nil, nil
	}
	on := get(envEndpoint) != "" || get(envTracesEndpoint) != ""
	if exporters := get(envTracesExporter); exporters != "" {
		on = false
		for _, e := range strings.Split(exporters, ",") {
			switch e = strings.TrimSpace(e); e {
			case "otlp":
				on = true
			case "none", "":
			default:
				return nil, fmt.Errorf("%s=%s: mcpvisor exports traces with otlp only (or none)", envTracesExporter, exporters)
			}
		}
	}
	if !on {
		return nil, nil
	}
	protocol := get(envTracesProtocol)
	if protocol == "" {
		protocol = get(envProtocol)
	}
	if protocol != "" && protocol != "http/protobuf" {
		return nil, fmt.Errorf("%s=%s: mcpvisor exports OTLP over http/protobuf only", envProtocol, protocol)
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "mcpvisor"), attribute.String("service.version", actors.Version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		_ = exp.Shutdown(ctx)
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// shutdownTracing flushes the spans still batched and stops the exporter,
// within tracingShutdownBound; nil (tracing off) is a no-op.
func shutdownTracing(tp *sdktrace.TracerProvider, clock quartz.Clock) error {
	if tp == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bound := clock.AfterFunc(tracingShutdownBound, cancel, "tracing", "shutdown")
	defer bound.Stop()
	if err := tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("flush traces: %w", err)
	}
	return nil
}

// startTracing builds the pipeline for a command (named in its messages)
// and returns the provider to hand to the Supervisor and the gateway
// (nil: tracing off) and the function that flushes it on exit.
func startTracing(ctx context.Context, command string, io IO) (trace.TracerProvider, func(), error) {
	tp, err := tracerFromEnv(ctx, io.LookupEnv)
	if err != nil || tp == nil {
		return nil, func() {}, err
	}
	flush := func() {
		if err := shutdownTracing(tp, quartz.NewReal()); err != nil {
			fmt.Fprintf(io.Stderr, "mcpvisor %s: warning: %v\n", command, err)
		}
	}
	return tp, flush, nil
}
