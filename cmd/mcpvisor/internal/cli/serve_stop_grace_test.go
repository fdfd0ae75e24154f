package cli

import (
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
)

// serve's own stop is a client's: --stop-grace (300ms unless given)
// becomes the Supervisor's CloseGrace, so Close kills every server within
// it; the fleet's StopGrace is left alone. Zero or negative is refused
// (zero would mean the 5s StopGrace again).
func TestServeFlags_StopGrace(t *testing.T) {
	t.Parallel()
	noEnv := IO{Stderr: io.Discard, LookupEnv: func(string) (string, bool) { return "", false }}
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 300 * time.Millisecond},
		{[]string{"--stop-grace", "2s"}, 2 * time.Second},
	} {
		f, err := parseServeFlags(tt.args, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		o := f.serveOptions(zap.NewNop(), nil, "", nil, noEnv)
		if o.CloseGrace != tt.want || o.StopGrace != 0 {
			t.Errorf("%q: CloseGrace %v StopGrace %v, want %v and the default", tt.args, o.CloseGrace, o.StopGrace, tt.want)
		}
	}
	for _, bad := range []string{"0", "-1s"} {
		if _, err := parseServeFlags([]string{"--stop-grace", bad}, noEnv); err == nil {
			t.Errorf("--stop-grace %s accepted", bad)
		}
	}
}
