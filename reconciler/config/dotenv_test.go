package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

func TestParseDotenv(t *testing.T) {
	t.Parallel()
	src := "# comment\n\nA=1\nexport B = two words # comment\nC=\"x\\ny \\\"q\\\"\"\nD='lit $X \\n'\nE=\"multi\nline\"\nA=later\nEMPTY=\n"
	got, err := config.ParseDotenv([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": "later", "B": "two words", "C": "x\ny \"q\"", "D": `lit $X \n`, "E": "multi\nline", "EMPTY": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{"NOEQUALS", "1A=x", "A=\"open", "A=\"x\" trailing", "-=x"} {
		_, err := config.ParseDotenv([]byte("OK=1\n" + bad + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), bad) {
			t.Errorf("ParseDotenv(%q) error %v: want one naming line 2 and not quoting it", bad, err)
		}
	}
}

// envFile's variables join the entry's env under its own, relative to the
// workspace folder; its values are secrets; an unreadable one is an error.
func TestParseFile_EnvFile(t *testing.T) {
	t.Parallel()
	opts := testOpts()
	files := map[string]string{"/work/proj/.env": "API_KEY=from-file-secret\nSHARED=file\n"}
	opts.ReadFile = func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return []byte(d), nil
		}
		return nil, os.ErrNotExist
	}
	src := `{"servers": {"s": {"command": "x", "envFile": "${workspaceFolder}/.env", "env": {"SHARED": "own"}, "args": ["${API_KEY}"]},
	  "rel": {"command": "x", "envFile": ".env"}, "gone": {"command": "x", "envFile": "missing.env"}}}`
	got := config.ParseFile("/work/proj/.vscode/mcp.json", []byte(src), opts)
	byName := map[string]int{}
	for i, s := range got.Servers {
		byName[s.Name] = i
	}
	if len(got.Servers) != 2 || len(got.Invalid) != 1 || got.Invalid[0].Name != "gone" ||
		!strings.Contains(got.Invalid[0].Reason, "envFile /work/proj/missing.env cannot be read") {
		t.Fatalf("servers %v invalid %+v", got.Servers, got.Invalid)
	}
	s := got.Servers[byName["s"]]
	if diff := cmp.Diff(map[string]string{"API_KEY": "from-file-secret", "SHARED": "own"}, s.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if s.Args[0] != "from-file-secret" {
		t.Errorf("${API_KEY} from the envFile: %q", s.Args[0])
	}
	if !slicesContains(config.SecretsOf(s), "from-file-secret") || s.EnvFile != "/work/proj/.env" {
		t.Errorf("secrets %v, envFile %q", config.SecretsOf(s), s.EnvFile)
	}
	if r := got.Servers[byName["rel"]]; r.Env["API_KEY"] != "from-file-secret" {
		t.Errorf("a relative envFile is not relative to the workspace: %v", r.Env)
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
