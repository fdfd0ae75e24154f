package keeper_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/cmd/mcpvisor/internal/keeper"
)

// At the end of its input the keeper kills exactly the groups still
// listed: those unlisted are gone already, and a pgid kill(2) would read
// as "this group" (0) or "every process" (-1, and 1 is init) is never
// listed, however the line reads.
func TestRun_KillsTheGroupsStillListed(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{"+100", "+200", "-100", "+300", "+0", "+1", "+-1", "-", "x5", "+abc", "+400", "-400", "-999", ""}, "\n")
	var killed []int
	keeper.Run(strings.NewReader(in), func(pgid int) { killed = append(killed, pgid) })
	slices.Sort(killed)
	if diff := cmp.Diff([]int{200, 300}, killed); diff != "" {
		t.Fatalf("killed (-want +got):\n%s", diff)
	}
}
