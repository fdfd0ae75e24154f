package oauth_test

import (
	"context"
	"testing"

	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// stranger is another local user (testkit.Stranger) who can run a copy of the test
// binary.
type stranger struct {
	testkit.OtherUser
	bin string
}

// newStranger is the other user, with the test binary where they can run it;
// the test must run as root to act as them, and fails loudly otherwise.
func newStranger(t *testing.T) *stranger {
	t.Helper()
	return &stranger{OtherUser: testkit.Stranger(t), bin: testkit.SharedTestBinary(t)}
}

// get GETs u as the stranger and returns the final answer ("STATUS BODY").
func (s *stranger) get(ctx context.Context, t *testing.T, u string) string {
	t.Helper()
	cmd := s.Command(ctx, s.bin)
	cmd.Env = []string{getEnv + "=" + u}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GET %s as %s: %v", u, s.Name, err)
	}
	return string(out)
}
