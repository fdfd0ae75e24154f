package watcher

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve_Interests(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	mkdir := func(parts ...string) {
		if err := os.MkdirAll(at(parts...), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(parts ...string) {
		if err := os.WriteFile(at(parts...), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target string, parts ...string) {
		if err := os.Symlink(target, at(parts...)); err != nil {
			t.Fatal(err)
		}
	}

	mkdir("plain")
	file("plain", "config.json")
	file("afile")
	// The Kubernetes ConfigMap layout: config.json -> ..data/config.json,
	// ..data -> ..v1 (the directory swapped atomically on update).
	mkdir("k8s", "..v1")
	file("k8s", "..v1", "config.json")
	link("..v1", "k8s", "..data")
	link("..data/config.json", "k8s", "config.json")
	link(at("plain"), "linkdir")                   // absolute link to a directory
	link("../k8s", "plain", "up")                  // relative link to a directory
	link(at("nowhere", "config.json"), "dangling") // link to a missing file
	link("loop", "loop")

	tests := []struct {
		name string
		path string
		want []interest
	}{
		{"plain file", at("plain", "config.json"),
			[]interest{{at("plain"), "config.json"}}},
		{"missing file", at("plain", "late.json"),
			[]interest{{at("plain"), "late.json"}}},
		{"missing parents wait in the nearest existing ancestor", at("late", "a", "b", "config.json"),
			[]interest{{root, "late"}}},
		{"a file where a directory is needed", at("afile", "config.json"),
			[]interest{{root, "afile"}}},
		{"kubernetes configmap", at("k8s", "config.json"),
			[]interest{{at("k8s"), "config.json"}, {at("k8s"), "..data"}, {at("k8s", "..v1"), "config.json"}}},
		{"under a symlinked directory", at("linkdir", "config.json"),
			[]interest{{root, "linkdir"}, {at("plain"), "config.json"}}},
		{"dot-dot applies after the symlink before it", at("plain") + "/up/../plain/config.json",
			[]interest{{at("plain"), "up"}, {at("plain"), "config.json"}}},
		{"dangling symlink waits for its target", at("dangling"),
			[]interest{{root, "dangling"}, {root, "nowhere"}}},
		{"symlink loop stops", at("loop"),
			[]interest{{root, "loop"}}},
		{"redundant separators", root + "//plain/./config.json",
			[]interest{{at("plain"), "config.json"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := resolve(tt.path)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(interest{})); diff != "" {
				t.Errorf("resolve(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}
