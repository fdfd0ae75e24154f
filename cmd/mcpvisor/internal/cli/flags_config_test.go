package cli

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/messages"
)

// --inherit-env, on run and serve, sets the Supervisor's default
// environment policy for entries without inheritEnv.
func TestConfigFlags_InheritEnv(t *testing.T) {
	t.Parallel()
	noEnv := func(string) (string, bool) { return "", false }
	tests := []struct {
		args []string
		want *messages.EnvPolicy
	}{
		{nil, nil},
		{[]string{"--inherit-env", "all"}, &messages.EnvPolicy{All: true}},
		{[]string{"--inherit-env", "none"}, &messages.EnvPolicy{}},
		{[]string{"--inherit-env", "NODE_*,AWS_PROFILE"}, &messages.EnvPolicy{Allow: []string{"NODE_*", "AWS_PROFILE"}}},
	}
	for _, tt := range tests {
		opts := runAndServeOptions(t, tt.args)
		for cmd, got := range map[string]*messages.EnvPolicy{
			"run":   opts["run"].InheritEnv,
			"serve": opts["serve"].InheritEnv,
		} {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s %q: InheritEnv (-want +got):\n%s", cmd, tt.args, diff)
			}
		}
	}
	if _, err := parseServeFlags([]string{"--inherit-env", "A B"}, IO{Stderr: io.Discard, LookupEnv: noEnv}); err == nil {
		t.Error("--inherit-env 'A B' accepted")
	}
}

// --autostart, on run and serve, sets the Supervisor's default for
// entries without autostart.
func TestConfigFlags_Autostart(t *testing.T) {
	t.Parallel()
	noEnv := func(string) (string, bool) { return "", false }
	tests := []struct {
		args []string
		want messages.Autostart
	}{
		{nil, ""},
		{[]string{"--autostart", "eager"}, messages.AutostartEager},
		{[]string{"--autostart", "lazy"}, messages.AutostartLazy},
	}
	for _, tt := range tests {
		opts := runAndServeOptions(t, tt.args)
		for cmd, o := range opts {
			if o.Autostart != tt.want {
				t.Errorf("%s %q: Autostart = %q, want %q", cmd, tt.args, o.Autostart, tt.want)
			}
		}
	}
	if _, err := parseServeFlags([]string{"--autostart", "later"}, IO{Stderr: io.Discard, LookupEnv: noEnv}); err == nil {
		t.Error("--autostart later accepted")
	}
}

// --max-lazy-starts, on run and serve, bounds how many lazy servers start
// at once: 4 unless set, 0 for no bound (Options.MaxLazyStarts negative).
func TestConfigFlags_MaxLazyStarts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want int
	}{
		{nil, 4},
		{[]string{"--max-lazy-starts", "2"}, 2},
		{[]string{"--max-lazy-starts", "0"}, -1},
	}
	for _, tt := range tests {
		opts := runAndServeOptions(t, tt.args)
		for cmd, o := range opts {
			if o.MaxLazyStarts != tt.want {
				t.Errorf("%s %q: MaxLazyStarts = %d, want %d", cmd, tt.args, o.MaxLazyStarts, tt.want)
			}
		}
	}
}

// runAndServeOptions parses args as run's flags and as serve's, with no
// environment, and returns the Supervisor options each makes.
func runAndServeOptions(t *testing.T, args []string) map[string]actors.Options {
	t.Helper()
	noEnv := func(string) (string, bool) { return "", false }
	rf, err := parseRunFlags(args, IO{Stderr: io.Discard, LookupEnv: noEnv})
	if err != nil {
		t.Fatalf("run %q: %v", args, err)
	}
	sf, err := parseServeFlags(args, IO{Stderr: io.Discard, LookupEnv: noEnv})
	if err != nil {
		t.Fatalf("serve %q: %v", args, err)
	}
	return map[string]actors.Options{"run": rf.options(zap.NewNop(), noEnv), "serve": sf.options(zap.NewNop(), noEnv)}
}
