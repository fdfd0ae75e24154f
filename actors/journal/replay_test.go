package journal_test

import (
	"slices"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/journal"
	"github.com/mcpvisor/mcpvisor/messages"
)

// The journal numbers events in one order and replays the newest ones
// from any sequence number, saying when older ones were dropped.
func TestJournal_ReplaysFromASequenceNumber(t *testing.T) {
	t.Parallel()
	j := journal.New(journal.Options{MaxEvents: 4})
	for range 6 {
		j.Publish(&messages.WatcherDegraded{})
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
		got, truncated := j.Since(tt.since)
		if g := seqsOf(got); !slices.Equal(g, tt.want) || truncated != tt.truncated {
			t.Errorf("since(%d) = %v, truncated %v; want %v, %v", tt.since, g, truncated, tt.want, tt.truncated)
		}
	}
}
