package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// The first start creates the token under XDG_STATE_HOME (or
// ~/.local/state), the next ones read the same; daemons starting at once
// agree on one token.
func TestServerToken_CreatedOnceAndShared(t *testing.T) {
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
		if tokens[i] != tokens[0] || tokens[i].from != want || len(tokens[i].value) != 43 {
			t.Fatalf("token %d = %+v, want the one token of %s, 43 characters, for all", i, tokens[i], want)
		}
	}
	again, err := serverToken("", lookup)
	if err != nil || again != tokens[0] {
		t.Fatalf("second start: %+v %v, want the same token", again, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(want))
	if len(entries) != 1 {
		t.Fatalf("%d files in %s, want only the token", len(entries), filepath.Dir(want))
	}

	home := t.TempDir()
	tok, err := serverToken("", envMap(map[string]string{"XDG_STATE_HOME": "relative/ignored", "HOME": home}))
	if err != nil || tok.from != filepath.Join(home, ".local", "state", "mcpvisor", "token") {
		t.Fatalf("without an absolute XDG_STATE_HOME: %+v %v, want ~/.local/state/mcpvisor/token", tok, err)
	}
	if _, err := serverToken("", envMap(nil)); err == nil || !strings.Contains(err.Error(), "--token-file") {
		t.Fatalf("with neither variable: %v, want an error naming --token-file", err)
	}
}

// --token-file wins over MCPVISOR_TOKEN, which wins over the default
// file; neither creates the default file.
func TestServerToken_Precedence(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(" from-the-file \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lookup := envMap(map[string]string{"XDG_STATE_HOME": state, "MCPVISOR_TOKEN": "from-the-env\n"})
	if tok, err := serverToken(file, lookup); err != nil || tok != (apiToken{"from-the-file", file}) {
		t.Fatalf("with --token-file: %+v %v", tok, err)
	}
	if tok, err := serverToken("", lookup); err != nil || tok != (apiToken{"from-the-env", "MCPVISOR_TOKEN"}) {
		t.Fatalf("with MCPVISOR_TOKEN: %+v %v", tok, err)
	}
	if _, err := os.Stat(filepath.Join(state, "mcpvisor")); !os.IsNotExist(err) {
		t.Fatalf("the default file's directory exists (%v): nothing should have been created", err)
	}
}
