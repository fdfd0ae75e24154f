package testkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PinnedNPMEntry is the path of entry (slash-separated) inside the npm
// package pkg installed under dir/node_modules, after checking that the
// installed version is the one dir/package.json pins: the tests that run
// real clients and servers from npm run exactly what the lockfile says,
// or fail saying what to install.
func PinnedNPMEntry(dir, pkg, entry string) (string, error) {
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := readJSON(filepath.Join(dir, "package.json"), &manifest); err != nil {
		return "", err
	}
	want, ok := manifest.Dependencies[pkg]
	if !ok {
		return "", fmt.Errorf("%s does not pin %s", filepath.Join(dir, "package.json"), pkg)
	}
	modules := filepath.Join(dir, "node_modules")
	pkgDir := filepath.Join(modules, filepath.FromSlash(pkg))
	var installed struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(pkgDir, "package.json"), &installed); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is not installed under %s", pkg, modules)
		}
		return "", err
	}
	if installed.Version != want {
		return "", fmt.Errorf("%s %s is installed under %s, package.json pins %s", pkg, installed.Version, modules, want)
	}
	path := filepath.Join(pkgDir, filepath.FromSlash(entry))
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s %s: %v", pkg, want, err)
	}
	return path, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
