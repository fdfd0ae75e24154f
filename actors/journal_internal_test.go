package actors

import (
	"slices"
	"testing"

	"github.com/coder/quartz"
	"go.uber.org/zap"

	"github.com/mcpvisor/mcpvisor/messages"
)

func seqs(envs []*messages.Envelope) []uint64 {
	out := []uint64{}
	for _, e := range envs {
		out = append(out, e.Seq)
	}
	return out
}

// The journal numbers events in one order and replays the newest ones
// from any sequence number, saying when older ones were dropped.
func TestJournal_ReplaysFromASequenceNumber(t *testing.T) {
	t.Parallel()
	j := newJournal(NewActorSystem(zap.NewNop()), quartz.NewMock(t), 4)
	for range 6 {
		j.publish(&messages.WatcherDegraded{})
	}
	tests := []struct {
		since     uint64
		want      []uint64
		truncated bool
	}{
		{since: 0, want: []uint64{3, 4, 5, 6}, truncated: true},
		{since: 1, want: []uint64{3, 4, 5, 6}, truncated: true},
		{since: 2, want: []uint64{3, 4, 5, 6}},
		{since: 4, want: []uint64{5, 6}},
		{since: 6, want: []uint64{}},
		{since: 9, want: []uint64{}},
	}
	for _, tt := range tests {
		got, truncated := j.since(tt.since)
		if g := seqs(got); !slices.Equal(g, tt.want) || truncated != tt.truncated {
			t.Errorf("since(%d) = %v, truncated %v; want %v, %v", tt.since, g, truncated, tt.want, tt.truncated)
		}
	}
}
