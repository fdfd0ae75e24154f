package testkit

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// OtherUser is a second local user, for tests of what another user on
// the machine can do to the test's user. Such a test means nothing as one
// user, so it fails (loudly, never skipped) when the test does not run as
// root, the only user that can act as another.
type OtherUser struct {
	Name     string
	UID, GID int
}

// otherUserName is the account the tests create to be the other user: an
// account of its own, so that nothing on the machine (files owned by
// nobody on NFS, say) is shared with it.
const otherUserName = "mcpvisor-other"

// Stranger is the other user, created with useradd on first use (a
// system account without a home or a shell); it fails the test unless it
// runs as root, or when the account can be neither found nor created.
func Stranger(t testing.TB) OtherUser {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test acts as another local user and must run as root (it runs as uid %d)", os.Geteuid())
	}
	u, err := ensureUser(otherUserName)
	if err != nil {
		t.Fatalf("running as root, but no other user to act as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return OtherUser{Name: u.Username, UID: uid, GID: gid}
}

// ensureUser looks name up, and creates it when it is missing. Test
// binaries of several packages run at once: the lookup and the creation
// are serialised across processes on a lock file.
func ensureUser(name string) (*user.User, error) {
	if u, err := user.Lookup(name); err == nil {
		return u, nil
	}
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "mcpvisor-useradd.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	if u, err := user.Lookup(name); err == nil {
		return u, nil
	}
	out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("useradd %s: %v: %s", name, err, bytes.TrimSpace(out))
	}
	return user.Lookup(name)
}

// Chown gives paths to the other user.
func (u OtherUser) Chown(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chown(p, u.UID, u.GID); err != nil {
			t.Fatal(err)
		}
	}
}

// WriteFile writes data to path as the other user (a process running as
// them), as an attacker would: the file is theirs, made with their
// rights.
func (u OtherUser) WriteFile(ctx context.Context, t testing.TB, path string, data []byte) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `umask 022 && cat > "$1"`, "sh", path)
	cmd.Stdin = bytes.NewReader(data)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("write %s as %s: %v: %s", path, u.Name, err, out)
	}
}

// SharedDir is a new directory every user can reach and write, sticky
// as /tmp is (mode 1777), removed after the test: where the other user
// plants files. (t.TempDir is the test user's alone: 0700.)
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpvisor-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Command is bin with args, to be run as the other user.
func (u OtherUser) Command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
	return cmd
}

// SharedTestBinary is the running test binary where every user can run
// it, so that a test can re-execute itself as the other user: a hard
// link, else a copy, in a new directory of mode 0755, removed after the
// test. (A copy being written while other tests fork can fail to exec
// with "text file busy"; a link cannot.)
func SharedTestBinary(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpvisor-shared-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.Link(os.Args[0], bin); err == nil {
		return bin
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}
