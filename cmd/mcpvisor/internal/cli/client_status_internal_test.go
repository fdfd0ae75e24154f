package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/messages"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

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

var t0 = time.Date(2026, 3, 1, 10, 2, 11, 0, time.UTC)

func sampleStatus() messages.Status {
	return messages.Status{
		Generation: 4, ObservedGeneration: 3,
		Servers: []messages.ServerStatus{
			{Name: "alpha", Prefix: "alpha", Transport: messages.TransportStdio, State: messages.StateReady, PID: 41872, Tools: 7, Restarts: 1, Since: t0.Add(-2*time.Hour - 3*time.Minute)},
			{Name: "beta", Prefix: "beta", Transport: messages.TransportHTTP, State: messages.StateFailed, Attempt: 2,
				LastError: "connect: Post \"https://api.example.com/[REDACTED]\": dial tcp 203.0.113.7:443: connect: connection refused",
				NextRetry: t0.Add(4 * time.Second), Since: t0.Add(-12 * time.Second)},
			{Name: "brave", Prefix: "brave", Transport: messages.TransportStdio, State: messages.StateFailed, Attempt: 1,
				LastError: "server process exited during the MCP handshake: exit status 1; stderr: A Brave API key is required via --brave-api-key, BRAVE_API_KEY environment variable",
				NextRetry: t0.Add(time.Second), Since: t0.Add(-3 * time.Second)},
			{Name: "delta", Prefix: "delta", Transport: messages.TransportStdio, State: messages.StateReady, PID: 41900, Tools: 9, Since: t0.Add(-26 * time.Hour),
				Warning: "new config failed, still serving the previous session: server process exited: exit status 1"},
			{Name: "epsilon", Prefix: "epsilon", Transport: messages.TransportSSE, State: messages.StateDisabled},
			{Name: "gamma", State: messages.StateInvalid, LastError: "env.TOKEN: ${TOKEN} is not set\n  in /home/me/.mcp.json\n"},
			{Name: "zeta-with-a-long-name", Prefix: "zeta-with-a-long-name", Transport: messages.TransportStdio, State: messages.StateStarting, Since: t0.Add(-time.Second)},
		},
		ConfigErrors: []messages.Diagnostic{
			{Position: messages.Position{Path: "/home/me/.mcp.json", Line: 14, Column: 5}, Severity: messages.SeverityError, Message: "env.TOKEN: ${TOKEN} is not set"},
			{Position: messages.Position{Path: "/home/me/.mcp.json", Line: 16, Column: 7}, Severity: messages.SeverityWarning, Message: "unknown field \"autoApprove\" ignored"},
		},
	}
}

// The LAST ERROR column shows a failure whole: cut at 100 characters, it
// hid what Brave's search server said to fix ("…--brave-api-key,
// BRAVE_API_KEY environment variable").
func TestWriteStatus_AlignedTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeStatus(&b, sampleStatus(), t0)
	golden(t, "status.golden", b.Bytes())
}

func TestWriteStatus_NoServers(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeStatus(&b, messages.Status{Servers: []messages.ServerStatus{}, ConfigErrors: []messages.Diagnostic{}}, t0)
	golden(t, "status_empty.golden", b.Bytes())
}

func TestWriteResync_PlanAndOutcome(t *testing.T) {
	t.Parallel()
	plan := []messages.PlanStep{
		{Server: "alpha", Action: messages.ActionKeep, Reason: "unchanged"},
		{Server: "beta", Action: messages.ActionRetry, Reason: "failed: retry"},
		{Server: "gamma", Action: messages.ActionStart, Reason: "new"},
	}
	var b bytes.Buffer
	writeResync(&b, httpapi.ResyncResult{Generation: 4, Plan: plan, Complete: true, Outcomes: []messages.ServerOutcome{
		{Server: "beta", State: messages.StateReady},
		{Server: "gamma", State: messages.StateFailed, Error: "connect: server process exited: exit status 1"},
	}})
	golden(t, "resync.golden", b.Bytes())
	b.Reset()
	writeResync(&b, httpapi.ResyncResult{Generation: 4, DryRun: true, Plan: plan, Complete: true})
	golden(t, "resync_dry_run.golden", b.Bytes())
}

func TestShortDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		-time.Second:                          "0s",
		0:                                     "0s",
		59*time.Second + 999*time.Millisecond: "59s",
		time.Minute:                           "1m",
		59 * time.Minute:                      "59m",
		time.Hour + 59*time.Minute:            "1h59m",
		26*time.Hour + 30*time.Minute:         "1d2h",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
