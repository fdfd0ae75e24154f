package oauth_test

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// stranger is another local user (nobody) who can run a copy of the test
// binary.
type stranger struct {
	name     string
	uid, gid uint32
	bin      string
}

// newStranger is nobody, with a copy of the test binary in a directory
// nobody can enter. The test must run as root to act as nobody, and says
// so loudly otherwise.
func newStranger(t *testing.T) *stranger {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test acts as another local user and must run as root (CI does); it cannot prove anything as an ordinary user")
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("no user nobody to be the other user: %v", err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	dir, err := os.MkdirTemp("", "oauth-stranger-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "oauth.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	return &stranger{name: "nobody", uid: uint32(uid), gid: uint32(gid), bin: bin}
}

// get GETs u as the stranger and returns the final answer ("STATUS BODY").
func (s *stranger) get(ctx context.Context, t *testing.T, u string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, s.bin)
	cmd.Env = []string{getEnv + "=" + u}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: s.uid, Gid: s.gid}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("GET %s as %s: %v", u, s.name, err)
	}
	return string(out)
}
