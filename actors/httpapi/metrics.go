package httpapi

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// CallObserver is told about every tool call made through an API. *Metrics
// implements it; the MCP gateway can share the daemon's *Metrics so that
// mcpvisor_tool_calls_total counts calls from both:
//
//	start := time.Now()
//	res, err := fleet.CallTool(ctx, name, args)
//	observer.ObserveCall(name, httpapi.ClassifyCall(res, err), time.Since(start))
type CallObserver interface {
	// ObserveCall records one call of the prefix__tool name with its
	// outcome and how long it took.
	ObserveCall(name string, outcome CallOutcome, took time.Duration)
}

// StatusSource is where the fleet gauges come from at scrape time.
type StatusSource interface {
	Status() messages.Status
}

// Metrics holds mcpvisor's Prometheus metrics, on a registry of its own
// (never the global default one). Every name starts with mcpvisor_;
// docs/api.md lists them. It is safe for concurrent use.
type Metrics struct {
	reg         *prometheus.Registry
	calls       *prometheus.CounterVec
	callSeconds *prometheus.HistogramVec
	reconcile   prometheus.Histogram
	events      *prometheus.CounterVec
	converge    *convergence
}

// NewMetrics builds the metrics; the fleet gauges read src at every scrape.
func NewMetrics(src StatusSource) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpvisor_tool_calls_total",
			Help: "Tool calls made through the API, by server and outcome (server is empty when the name named no configured server).",
		}, []string{"server", "outcome"}),
		callSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpvisor_tool_call_duration_seconds",
			Help:    "How long tool calls made through the API took, by server.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"server"}),
		reconcile: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mcpvisor_reconcile_duration_seconds",
			Help:    "From a plan (config change or resync) to every server it started, restarted, retried or stopped having settled.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpvisor_events_total",
			Help: "Events published by the supervisor, by type.",
		}, []string{"type"}),
		converge: newConvergence(),
	}
	m.reg.MustRegister(m.calls, m.callSeconds, m.reconcile, m.events, fleetCollector{src: src})
	return m
}

// Registry is the metrics' own registry, for an embedder that adds more.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ObserveCall implements CallObserver. The server label comes from the
// name only when the call got as far as a configured server, so that
// arbitrary names sent to the API cannot grow the label set.
func (m *Metrics) ObserveCall(name string, outcome CallOutcome, took time.Duration) {
	server := ""
	if outcome != OutcomeBadName && outcome != OutcomeUnknownServer {
		server, _, _ = actors.SplitName(name)
	}
	m.calls.WithLabelValues(server, string(outcome)).Inc()
	m.callSeconds.WithLabelValues(server).Observe(took.Seconds())
}

// ObserveEvent counts an event and feeds the reconcile-duration histogram.
// Server.Serve calls it for every event; an embedder serving Handler
// itself may call it from its own Supervisor.Follow feed (skipping the
// feed's Seq 0 notices).
func (m *Metrics) ObserveEvent(env *messages.Envelope) {
	m.events.WithLabelValues(env.Event.EventType()).Inc()
	for _, d := range m.converge.observe(env) {
		m.reconcile.Observe(d.Seconds())
	}
}

// fleetCollector turns a status snapshot into gauges at scrape time.
type fleetCollector struct{ src StatusSource }

var (
	descServers = prometheus.NewDesc("mcpvisor_servers",
		"Configured servers by state.", []string{"state"}, nil)
	descRestarts = prometheus.NewDesc("mcpvisor_server_restarts_total",
		"Times a server was restarted (after a failure or a config change) since it was added; resets when it is removed.", []string{"server"}, nil)
	descTools = prometheus.NewDesc("mcpvisor_server_tools",
		"Tools a server exposes (0 unless it is ready).", []string{"server"}, nil)
	descGeneration = prometheus.NewDesc("mcpvisor_config_generation",
		"Newest desired-state generation the fleet actor has seen.", nil, nil)
	descObserved = prometheus.NewDesc("mcpvisor_config_observed_generation",
		"Newest generation whose plan was fully applied.", nil, nil)
	descDiagnostics = prometheus.NewDesc("mcpvisor_config_diagnostics",
		"Problems found in the config files, by severity.", []string{"severity"}, nil)
	descBuild = prometheus.NewDesc("mcpvisor_build_info",
		"Always 1; the version label is mcpvisor's version.", []string{"version"}, nil)
)

// allStates are reported even at zero, so a dashboard's series exist.
var allStates = []messages.State{
	messages.StatePending, messages.StateStarting, messages.StateReady, messages.StateFailed,
	messages.StateStopping, messages.StateStopped, messages.StateInvalid, messages.StateDisabled,
	messages.StateUntrusted, messages.StateNeedsAuth, messages.StateIdle,
}

func (fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descServers, descRestarts, descTools, descGeneration, descObserved, descDiagnostics, descBuild} {
		ch <- d
	}
}

func (c fleetCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Status()
	byState := make(map[messages.State]int, len(allStates))
	for _, s := range st.Servers {
		byState[s.State]++
		ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, float64(s.Restarts), s.Name)
		ch <- prometheus.MustNewConstMetric(descTools, prometheus.GaugeValue, float64(s.Tools), s.Name)
	}
	for _, state := range allStates {
		ch <- prometheus.MustNewConstMetric(descServers, prometheus.GaugeValue, float64(byState[state]), string(state))
	}
	bySeverity := map[messages.Severity]int{messages.SeverityError: 0, messages.SeverityWarning: 0}
	for _, d := range st.ConfigErrors {
		bySeverity[d.Severity]++
	}
	for sev, n := range bySeverity {
		ch <- prometheus.MustNewConstMetric(descDiagnostics, prometheus.GaugeValue, float64(n), string(sev))
	}
	ch <- prometheus.MustNewConstMetric(descGeneration, prometheus.GaugeValue, float64(st.Generation))
	ch <- prometheus.MustNewConstMetric(descObserved, prometheus.GaugeValue, float64(st.ObservedGeneration))
	ch <- prometheus.MustNewConstMetric(descBuild, prometheus.GaugeValue, 1, actors.Version)
}
