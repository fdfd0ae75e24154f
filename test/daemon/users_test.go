package daemon_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

// Another user on the machine gets nothing from the daemon: the API wants
// the token even on loopback, and the token file is the owner's alone.
// Run as root, the clients run as another user (testkit.Stranger):
// without a token (their own state directory has none) their CLI refuses
// to talk to a daemon whose socket is not theirs, and the owner's token
// file cannot be read. Run as anyone else, a client without the token is
// refused by the daemon.
func TestDaemon_OtherUsersAreRefused(t *testing.T) {
	t.Parallel()
	ctx := actorstest.ContextTimeout(t, daemonTimeout)
	cfg := filepath.Join(t.TempDir(), ".mcp.json")
	testkit.WriteConfig(t, cfg, map[string]testkit.Server{"alpha": testkit.Example(bin, "--name", "alpha")})
	d, addr := daemon(ctx, t, nil, cfg)
	env := []string{"MCPVISOR_ADDR=" + addr}
	events := start(t, env, "events", "--since", "0", "--json")
	events.waitState(ctx, "alpha", "ready")
	run(ctx, t, env, "call", "alpha__echo", `{"message": "the owner"}`).ok(t) // the owner finds the token by itself

	stranger := strangerCommand(t)
	empty := stranger.dir("state")
	// The test's user without the token is refused by the daemon. Another
	// user's CLI does not even talk to it: the daemon's socket is not
	// theirs (the CLI trusts only its own user's listener, not root's).
	refusal := "needs a token and none was found"
	if stranger.other {
		refusal = "refusing to talk to " + addr + ", nothing was sent"
	}
	for _, args := range [][]string{{"status"}, {"call", "alpha__echo", `{"message": "a stranger"}`}, {"tools"}} {
		r := stranger.run(t, []string{"MCPVISOR_ADDR=" + addr, "XDG_STATE_HOME=" + empty}, args...)
		if r.code != 1 || !strings.Contains(r.stderr, refusal) {
			t.Errorf("%s %v without the token: exit %d, stdout %q, stderr %q: want %q", stranger.who, args, r.code, r.stdout, r.stderr, refusal)
		}
	}
	if stranger.other {
		r := stranger.run(t, []string{"MCPVISOR_ADDR=" + addr, "XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME")}, "status")
		if r.code != 1 || !strings.Contains(r.stderr, "permission denied") {
			t.Errorf("%s with the owner's token file: exit %d, stderr %q: want it unreadable", stranger.who, r.code, r.stderr)
		}
	}
	if code := d.interrupt(ctx); code != 0 {
		t.Fatalf("run exit %d", code)
	}
	events.exitCode(ctx)
}

// stranger runs the mcpvisor binary as another user where the test can
// (as root: testkit.Stranger), else as the test's own user without its token.
type stranger struct {
	who      string
	other    bool // another user indeed (the test runs as root)
	uid, gid uint32
	bin      string
	home     string // a directory the stranger may use
}

func strangerCommand(t *testing.T) *stranger {
	t.Helper()
	s := &stranger{who: "the test's user", uid: uint32(os.Getuid()), gid: uint32(os.Getgid()), bin: bin, home: t.TempDir()}
	if os.Geteuid() != 0 {
		return s
	}
	other := testkit.Stranger(t)
	s.who, s.other, s.uid, s.gid = other.Name, true, uint32(other.UID), uint32(other.GID)
	// The test's temporary directories are the owner's alone: give the
	// stranger a directory of its own, with a copy of the binary in it.
	home, err := os.MkdirTemp("", "mcpvisor-stranger-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chown(home, int(s.uid), int(s.gid)); err != nil {
		t.Fatal(err)
	}
	s.home = home
	s.bin = filepath.Join(home, "mcpvisor")
	// A hard link, not a copy: a file open for writing while other tests
	// fork would make its exec fail with "text file busy".
	if err := os.Link(bin, s.bin); err != nil {
		t.Fatal(err)
	}
	return s
}

// dir is a new directory of the stranger's.
func (s *stranger) dir(name string) string {
	p := filepath.Join(s.home, name)
	_ = os.Mkdir(p, 0o700)
	_ = os.Chown(p, int(s.uid), int(s.gid))
	return p
}

// run runs the binary as the stranger with env as its whole environment.
func (s *stranger) run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(actorstest.ContextTimeout(t, daemonTimeout), s.bin, args...)
	cmd.Env = append([]string{"HOME=" + s.home, "PATH=/usr/bin:/bin"}, env...)
	cmd.Dir = s.home
	if s.other {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: s.uid, Gid: s.gid}}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v as %s: %v", args, s.who, err)
	}
	return result{code, stdout.String(), stderr.String()}
}
