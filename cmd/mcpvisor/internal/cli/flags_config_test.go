package cli

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

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
		rf, err := parseRunFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("run %q: %v", tt.args, err)
		}
		sf, err := parseServeFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("serve %q: %v", tt.args, err)
		}
		for cmd, got := range map[string]*messages.EnvPolicy{
			"run":   rf.options(zap.NewNop(), noEnv).InheritEnv,
			"serve": sf.options(zap.NewNop(), noEnv).InheritEnv,
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
		rf, err := parseRunFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("run %q: %v", tt.args, err)
		}
		sf, err := parseServeFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("serve %q: %v", tt.args, err)
		}
		if got := rf.options(zap.NewNop(), noEnv).Autostart; got != tt.want {
			t.Errorf("run %q: Autostart = %q, want %q", tt.args, got, tt.want)
		}
		if got := sf.options(zap.NewNop(), noEnv).Autostart; got != tt.want {
			t.Errorf("serve %q: Autostart = %q, want %q", tt.args, got, tt.want)
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
	noEnv := func(string) (string, bool) { return "", false }
	tests := []struct {
		args []string
		want int
	}{
		{nil, 4},
		{[]string{"--max-lazy-starts", "2"}, 2},
		{[]string{"--max-lazy-starts", "0"}, -1},
	}
	for _, tt := range tests {
		rf, err := parseRunFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("run %q: %v", tt.args, err)
		}
		sf, err := parseServeFlags(tt.args, IO{Stderr: io.Discard, LookupEnv: noEnv})
		if err != nil {
			t.Fatalf("serve %q: %v", tt.args, err)
		}
		if got := rf.options(zap.NewNop(), noEnv).MaxLazyStarts; got != tt.want {
			t.Errorf("run %q: MaxLazyStarts = %d, want %d", tt.args, got, tt.want)
		}
		if got := sf.options(zap.NewNop(), noEnv).MaxLazyStarts; got != tt.want {
			t.Errorf("serve %q: MaxLazyStarts = %d, want %d", tt.args, got, tt.want)
		}
	}
}
