package actors_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mayImport is the actors wing's layering (docs/architecture.md,
// "Packages"): for each package under actors/, the mcpvisor packages its
// non-test files may import. Arrows point one way, down: the facade wires
// the fleet and what it steps; the fleet actor reaches view, session,
// intake, catcache and the journal; a session reaches its relay and its
// transport. Nothing imports upward or sideways. A new package, or a new
// arrow, is added here on purpose.
var mayImport = map[string][]string{
	"actors": {"actors/internal/fleet", "actors/internal/view", "actors/internal/session", "actors/internal/intake",
		"actors/internal/catcache", "actors/internal/relay", "actors/internal/testhook", "actors/journal", "actors/oauth", "actors/ondisk", "watcher"},
	"actors/internal/fleet":     {"actors/internal/view", "actors/internal/session", "actors/internal/intake", "actors/internal/catcache", "actors/journal"},
	"actors/internal/view":      nil,
	"actors/internal/intake":    {"actors/journal", "actors/ondisk", "watcher"},
	"actors/internal/catcache":  {"actors/ondisk"}, // its files pass ondisk's ownership check
	"actors/internal/session":   {"actors/internal/relay", "actors/internal/transport", "actors/internal/mcptrace", "actors/internal/verbatim", "actors/oauth"},
	"actors/internal/relay":     {"actors/journal", "actors/internal/verbatim"},
	"actors/internal/transport": {"actors/internal/ndjson", "actors/oauth", "actors/ondisk"},
	"actors/internal/ndjson":    nil,
	"actors/internal/verbatim":  nil, // the bytes of upstream results: the session captures, the gateway sends them
	"actors/internal/mcptrace":  nil,
	"actors/internal/httpguard": {"actors/peercred"}, // the owner of a connection is not throttled
	"actors/internal/testhook":  {"actors/internal/fleet"},
	"actors/journal":            nil,
	"actors/oauth":              {"actors/ondisk", "actors/peercred"}, // ondisk: its token files; peercred: the login callback
	"actors/ondisk":             nil,
	"actors/peercred":           nil,
	// Above the facade: what embedders mount, and the test kit.
	"actors/gateway":             {"actors", "actors/journal", "actors/internal/httpguard", "actors/internal/mcptrace", "actors/internal/ndjson", "actors/internal/verbatim"},
	"actors/httpapi":             {"actors", "actors/journal", "actors/internal/httpguard"},
	"actors/httpapi/httpapitest": {"actors", "actors/httpapi", "actors/journal"},
	"actors/actorstest":          {"actors", "actors/journal", "actors/internal/testhook", "test/testctx", "test/benchcpu"},
	"actors/exampleserver":       nil,
}

// everyone may import the plain data and the pure core.
var everyone = []string{"messages", "reconciler", "reconciler/config", "reconciler/redact"}

// TestLayers_ArrowsPointDown reads the imports of every non-test file
// under actors/ and checks them against mayImport; every package there
// must be listed.
func TestLayers_ArrowsPointDown(t *testing.T) {
	t.Parallel()
	const own = "github.com/mcpvisor/mcpvisor/"
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Join("actors", filepath.Dir(path)))
		allowed, ok := mayImport[pkg]
		if !ok {
			t.Errorf("%s: package %s is not in mayImport: place it in the layering", path, pkg)
			return nil
		}
		seen[pkg] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			target, isOwn := strings.CutPrefix(p, own)
			if !isOwn || slices.Contains(everyone, target) || slices.Contains(allowed, target) {
				continue
			}
			t.Errorf("%s imports %s: %s may import only %v (and %v)", path, target, pkg, allowed, everyone)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range mayImport {
		if !seen[pkg] {
			t.Errorf("mayImport lists %s, which has no files", pkg)
		}
	}
}
