package cli_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden output of reconciler/config/testdata/check/*/check*.golden")

// fixturesDir holds one directory per config rule (see its README.md).
const fixturesDir = "../../../../reconciler/config/testdata/check"

// TestCheck_Fixtures runs check and check --json over each rule's
// fixture and compares the output with its golden files. The fixture is
// copied to a temporary directory, shown as $FIXTURE, so paths are stable.
//
//	go test ./cmd/mcpvisor/internal/cli/ -run TestCheck_Fixtures -rewrite
func TestCheck_Fixtures(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(fixturesDir, d.Name())
			dir := copyFixture(t, src)
			raw, err := os.ReadFile(filepath.Join(src, "args"))
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			for _, a := range strings.Fields(string(raw)) {
				if !strings.HasPrefix(a, "-") {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			env := map[string]string{"HOME": "/home/ada", "TOKEN": "tok-1234", "XDG_CONFIG_HOME": t.TempDir()}
			work := t.TempDir() // no project files: the fixture's files are named, so trusted
			for golden, extra := range map[string][]string{"check.golden": nil, "check.json.golden": {"--json"}} {
				res := mcpvisor(actorstest.Context(t), env, "", append(append([]string{"check", "--workdir", work}, extra...), args...)...)
				got := strings.ReplaceAll(res.stdout, dir, "$FIXTURE") + "exit " + string(rune('0'+res.code)) + "\n"
				if res.stderr != "" {
					got += "stderr: " + strings.ReplaceAll(res.stderr, dir, "$FIXTURE")
				}
				path := filepath.Join(src, golden)
				if *rewrite {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -rewrite to create it)", err)
				}
				if diff := cmp.Diff(string(want), got); diff != "" {
					t.Errorf("%s mismatch (-want +got), run with -rewrite if intended:\n%s", golden, diff)
				}
			}
		})
	}
}

// copyFixture copies a fixture's config files (not its goldens) to a
// temporary directory.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if rel == "args" || strings.HasSuffix(rel, ".golden") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
