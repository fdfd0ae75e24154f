package reconciler_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

func spec(name string, args ...string) messages.ServerSpec {
	s := messages.ServerSpec{Name: name, Transport: messages.TransportStdio, Command: "srv", Args: args}
	s.Fingerprint = config.Fingerprint(s)
	return s
}

func withEnv(s messages.ServerSpec, k, v string) messages.ServerSpec {
	s.Env = map[string]string{k: v}
	s.Fingerprint = config.Fingerprint(s)
	return s
}

func disabled(s messages.ServerSpec) messages.ServerSpec {
	s.Disabled = true
	return s
}

func obs(s messages.ServerSpec, st messages.State) reconciler.Observed {
	return reconciler.Observed{Spec: s, State: st}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	a, b := spec("a"), spec("b")
	tests := []struct {
		name     string
		desired  reconciler.Desired
		observed []reconciler.Observed
		want     []messages.PlanStep
	}{
		{
			name:    "new server starts",
			desired: reconciler.Desired{Servers: []messages.ServerSpec{a}},
			want:    []messages.PlanStep{{Server: "a", Action: messages.ActionStart, Reason: "new"}},
		},
		{
			name:     "removed server stops",
			observed: []reconciler.Observed{obs(a, messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionStop, Reason: "removed"}},
		},
		{
			name:     "disabled live server stops",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{disabled(a)}},
			observed: []reconciler.Observed{obs(a, messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionStop, Reason: "disabled"}},
		},
		{
			name:    "disabled server not running is kept as is",
			desired: reconciler.Desired{Servers: []messages.ServerSpec{disabled(a)}},
			want:    []messages.PlanStep{{Server: "a", Action: messages.ActionKeep, Reason: "disabled"}},
		},
		{
			name:     "unchanged ready server is kept",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{a}},
			observed: []reconciler.Observed{obs(a, messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionKeep, Reason: "unchanged"}},
		},
		{
			name:     "unchanged ready server is kept on resync",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{a}, Resync: true},
			observed: []reconciler.Observed{obs(a, messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionKeep, Reason: "unchanged"}},
		},
		{
			name:     "changed args and env restart, naming the fields",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{withEnv(spec("a", "-v"), "TOKEN", "new")}},
			observed: []reconciler.Observed{obs(withEnv(a, "TOKEN", "old"), messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionRestart, Reason: "changed: args, env"}},
		},
		{
			name:     "failed server is retried on resync",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{a}, Resync: true},
			observed: []reconciler.Observed{obs(a, messages.StateFailed)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionRetry, Reason: "failed: retry"}},
		},
		{
			name:     "failed server waits for its backoff without resync",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{a}},
			observed: []reconciler.Observed{obs(a, messages.StateFailed)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionKeep, Reason: "failed: waiting for retry"}},
		},
		{
			name:     "entry turned invalid keeps its live session",
			desired:  reconciler.Desired{Invalid: []messages.InvalidServer{{Name: "a", Reason: "bad"}}},
			observed: []reconciler.Observed{obs(a, messages.StateReady)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionKeep, Reason: "invalid: keeping last valid session"}},
		},
		{
			name:    "invalid entry with nothing live starts nothing",
			desired: reconciler.Desired{Invalid: []messages.InvalidServer{{Name: "a", Reason: "bad"}}},
			want:    []messages.PlanStep{},
		},
		{
			name:     "stopped sessions count as absent",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{a}},
			observed: []reconciler.Observed{obs(a, messages.StateStopped)},
			want:     []messages.PlanStep{{Server: "a", Action: messages.ActionStart, Reason: "new"}},
		},
		{
			name:     "steps are sorted by name",
			desired:  reconciler.Desired{Servers: []messages.ServerSpec{b, a}},
			observed: []reconciler.Observed{obs(spec("c"), messages.StateReady), obs(a, messages.StateReady)},
			want: []messages.PlanStep{
				{Server: "a", Action: messages.ActionKeep, Reason: "unchanged"},
				{Server: "b", Action: messages.ActionStart, Reason: "new"},
				{Server: "c", Action: messages.ActionStop, Reason: "removed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := reconciler.Plan(tt.desired, tt.observed)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlan_Converges drives a model of the fleet actor with random desired
// states, failures and resyncs: applying each plan always makes live equal
// desired (modulo failed servers waiting for a retry), and never restarts
// an unchanged ready server.
func TestPlan_Converges(t *testing.T) {
	t.Parallel()
	for seed := uint64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, seed))
		live := map[string]reconciler.Observed{}
		for round := 0; round < 30; round++ {
			desired := randomDesired(rng)
			// Random failures of live servers.
			for name, o := range live {
				if rng.IntN(4) == 0 {
					o.State = messages.StateFailed
					live[name] = o
				}
			}
			steps := reconciler.Plan(desired, values(live))
			wantSpecs := map[string]messages.ServerSpec{}
			for _, s := range desired.Servers {
				if !s.Disabled {
					wantSpecs[s.Name] = s
				}
			}
			for _, st := range steps {
				o, wasLive := live[st.Server]
				want, isWanted := wantSpecs[st.Server]
				if st.Action == messages.ActionRestart || st.Action == messages.ActionStop || st.Action == messages.ActionRetry {
					if wasLive && o.State == messages.StateReady && isWanted && o.Spec.Fingerprint == want.Fingerprint {
						t.Fatalf("seed %d round %d: unchanged ready %q got %s", seed, round, st.Server, st.Action)
					}
				}
				switch st.Action {
				case messages.ActionStart, messages.ActionRestart, messages.ActionRetry:
					live[st.Server] = obs(want, messages.StateReady)
				case messages.ActionStop:
					delete(live, st.Server)
				}
			}
			for name, want := range wantSpecs {
				o, ok := live[name]
				if !ok || o.Spec.Fingerprint != want.Fingerprint {
					t.Fatalf("seed %d round %d: %q not converged: live %+v", seed, round, name, o)
				}
				if o.State != messages.StateReady && !(o.State == messages.StateFailed && !desired.Resync) {
					t.Fatalf("seed %d round %d: %q left %s", seed, round, name, o.State)
				}
			}
			for name := range live {
				if _, ok := wantSpecs[name]; !ok {
					t.Fatalf("seed %d round %d: %q live but not desired", seed, round, name)
				}
			}
		}
	}
}

func randomDesired(rng *rand.Rand) reconciler.Desired {
	var d reconciler.Desired
	for i := 0; i < 6; i++ {
		if rng.IntN(3) == 0 {
			continue
		}
		s := spec(fmt.Sprintf("s%d", i), fmt.Sprintf("--v=%d", rng.IntN(2)))
		if rng.IntN(8) == 0 {
			s = disabled(s)
		}
		d.Servers = append(d.Servers, s)
	}
	d.Resync = rng.IntN(3) == 0
	return d
}

func values(m map[string]reconciler.Observed) []reconciler.Observed {
	out := make([]reconciler.Observed, 0, len(m))
	for _, o := range m {
		out = append(out, o)
	}
	return out
}

func BenchmarkPlan_10000ServersOneChange(b *testing.B) {
	desired := reconciler.Desired{}
	observed := make([]reconciler.Observed, 0, 10000)
	for i := 0; i < 10000; i++ {
		s := spec(fmt.Sprintf("server-%05d", i), "--port", fmt.Sprint(i))
		observed = append(observed, obs(s, messages.StateReady))
		if i == 5000 {
			s = spec(s.Name, "--port", "changed")
		}
		desired.Servers = append(desired.Servers, s)
	}
	b.ReportAllocs()
	for b.Loop() {
		steps := reconciler.Plan(desired, observed)
		if len(steps) != 10000 {
			b.Fatal(len(steps))
		}
	}
}
