package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/httpapi"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// P1: a token reused across restarts let whoever collected it once use
// it against every later daemon. Each start now writes a fresh token
// under XDG_STATE_HOME (or ~/.local/state), unless another live daemon
// uses the current one: daemons starting at once, or a `run` and a
// `serve --transport http` running together, share one token.
func TestServerToken_RotatedAtEachStartSharedWhileLive(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	lookup := envMap(map[string]string{"XDG_STATE_HOME": state, "HOME": "/nonexistent"})
	const n = 8
	tokens := make([]apiToken, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tokens[i], errs[i] = serverToken("", lookup) })
	}
	wg.Wait()
	want := filepath.Join(state, "mcpvisor", "token")
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if tokens[i].value != tokens[0].value || tokens[i].from != want || len(tokens[i].value) != 43 {
			t.Fatalf("token %d from %s: want the one token of %s, 43 characters, for all", i, tokens[i].from, want)
		}
	}
	if onDisk := readOrFail(t, want); onDisk != tokens[0].value {
		t.Fatal("the live daemons' token is not the one in the file, where their clients read it")
	}
	// Another daemon while they live: the same token.
	again, err := serverToken("", lookup)
	if err != nil || again.value != tokens[0].value {
		t.Fatalf("a start while others live: %v, want their token", err)
	}
	again.release()
	for i := range n {
		tokens[i].release()
	}
	// All stopped: the next start rotates it.
	next, err := serverToken("", lookup)
	if err != nil {
		t.Fatal(err)
	}
	defer next.release()
	if next.value == tokens[0].value || readOrFail(t, want) != next.value {
		t.Fatal("the token was not rotated at a start with no other daemon live")
	}
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 2 {
		t.Fatalf("%d files in %s, want only the token and its lock", len(entries), filepath.Dir(want))
	}

	home := t.TempDir()
	tok, err := serverToken("", envMap(map[string]string{"XDG_STATE_HOME": "relative/ignored", "HOME": home}))
	if err != nil || tok.from != filepath.Join(home, ".local", "state", "mcpvisor", "token") {
		t.Fatalf("without an absolute XDG_STATE_HOME: %s %v, want ~/.local/state/mcpvisor/token", tok.from, err)
	}
	tok.release()
	if _, err := serverToken("", envMap(nil)); err == nil || !strings.Contains(err.Error(), "--token-file") {
		t.Fatalf("with neither variable: %v, want an error naming --token-file", err)
	}
}

// A1: a pinned token shorter than 32 bytes is refused, by the daemons
// and by the clients (which then send nothing), saying how to make one.
func TestToken_ShortPinnedTokenIsRefused(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("ab\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := envMap(map[string]string{"MCPVISOR_TOKEN": "ab", "XDG_STATE_HOME": t.TempDir()})
	for what, err := range map[string]error{
		"serverToken(--token-file)":   second(serverToken(file, env)),
		"serverToken(MCPVISOR_TOKEN)": second(serverToken("", env)),
		"clientToken(--token-file)":   second(clientToken(file, env)),
		"clientToken(MCPVISOR_TOKEN)": second(clientToken("", env)),
	} {
		if err == nil || !strings.Contains(err.Error(), httpapi.CheckToken("ab").Error()) || strings.Contains(err.Error(), "ab ") {
			t.Errorf("%s: %v, want the API's one refusal (naming the length and how to make one)", what, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func readOrFail(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// --token-file wins over MCPVISOR_TOKEN, which wins over the default
// file; neither creates the default file.
func TestServerToken_Precedence(t *testing.T) {
	t.Parallel()
	const fromFile, fromEnv = "from-the-file-32-bytes-long-at-least", "from-the-env-32-bytes-long-at-least"
	state := t.TempDir()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(" "+fromFile+" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lookup := envMap(map[string]string{"XDG_STATE_HOME": state, "MCPVISOR_TOKEN": fromEnv + "\n"})
	if tok, err := serverToken(file, lookup); err != nil || tok != (apiToken{value: fromFile, from: file}) {
		t.Fatalf("with --token-file: %+v %v", tok, err)
	}
	if tok, err := serverToken("", lookup); err != nil || tok != (apiToken{value: fromEnv, from: "MCPVISOR_TOKEN"}) {
		t.Fatalf("with MCPVISOR_TOKEN: %+v %v", tok, err)
	}
	if _, err := os.Stat(filepath.Join(state, "mcpvisor")); !os.IsNotExist(err) {
		t.Fatalf("the default file's directory exists (%v): nothing should have been created", err)
	}
}

// A default token file left readable by others is not reused at a start:
// a fresh token replaces it, in a file of the owner's alone.
func TestServerToken_ExposedDefaultFileIsReplaced(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	path := filepath.Join(state, "mcpvisor", "token")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	exposed := strings.Repeat("k", 43)
	if err := os.WriteFile(path, []byte(exposed+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := serverToken("", envMap(map[string]string{"XDG_STATE_HOME": state}))
	if err != nil {
		t.Fatal(err)
	}
	defer tok.release()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || tok.value == exposed || readOrFail(t, path) != tok.value {
		t.Fatalf("after a start: %v, mode %v; want a fresh token in a 0600 file", err, st.Mode().Perm())
	}
}
