package reconciler_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The pure core stays pure: reconciler/ (with config/ and redact/ under
// it) and messages/ import neither the actor runtime nor the clock, the
// logger or the file watcher, and no I/O; messages/ (plain data) imports
// no mcpvisor package at all, and the arrows between them point one way
// (reconciler → config → redact). Imports are checked directly; since
// these import only each other of mcpvisor's own packages, that holds
// transitively.
func TestFleet_CoreImportsNoRuntime(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/asynkron/protoactor-go", "github.com/coder/quartz", "go.uber.org/zap", "github.com/fsnotify/fsnotify"}
	forbiddenStd := []string{"math/rand", "math/rand/v2", "os", "os/exec", "net", "net/http", "log", "log/slog"}
	const own = "github.com/mcpvisor/mcpvisor/"
	allowedOwn := map[string][]string{
		".":           {own + "messages", own + "reconciler/config", own + "reconciler/redact"},
		"config":      {own + "messages", own + "reconciler/redact"},
		"redact":      nil,
		"../messages": nil,
	}
	for dir, allowed := range allowedOwn {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files: %v", dir, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range forbidden {
					if path == bad || strings.HasPrefix(path, bad+"/") {
						t.Errorf("%s imports %s", file, path)
					}
				}
				if slices.Contains(forbiddenStd, path) {
					t.Errorf("%s imports %s", file, path)
				}
				if strings.HasPrefix(path, own) && !slices.Contains(allowed, path) {
					t.Errorf("%s imports %s", file, path)
				}
			}
		}
	}
}
