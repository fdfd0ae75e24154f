package config

import (
	"fmt"
	"maps"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// envFile reads an entry's envFile (VS Code): a dotenv file whose
// variables are added to the server's env (the entry's own env wins). The
// path is expanded, "~" allowed, and relative to the workspace folder.
// The file is read through LoadOptions.ReadFile, so parsing stays pure;
// its values are secrets. It returns the resolved path and the values.
func (e *entryParser) envFile(v *hujson.Value) (string, map[string]string) {
	s, ok := e.expand(v, ref(fieldEnvFile), true)
	if !ok || s == "" {
		return "", nil
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(e.p.workspace(), s)
	}
	s = filepath.Clean(s)
	if e.p.opts.ReadFile == nil {
		e.errorAt(v.StartOffset, "envFile cannot be read here (no file access): give the variables in env")
		return s, nil
	}
	data, err := e.p.opts.ReadFile(s)
	e.recordEnvFile(s, data, err)
	if err != nil {
		e.errorAt(v.StartOffset, fmt.Sprintf("envFile %s cannot be read: %s", s, oneLine(err.Error())))
		return s, nil
	}
	vals, err := ParseDotenv(data)
	if err != nil {
		e.errorAt(v.StartOffset, fmt.Sprintf("envFile %s: %v", s, err))
		return s, nil
	}
	for _, val := range vals {
		if val != "" {
			e.secrets = append(e.secrets, val)
		}
	}
	return s, vals
}

// mergeEnv adds the entry's own env over the envFile's variables.
func mergeEnv(fromFile, own map[string]string) map[string]string {
	if len(fromFile) == 0 {
		return own
	}
	out := maps.Clone(fromFile)
	maps.Copy(out, own)
	return out
}

// headersHelper reads the headersHelper command: expanded, "~" allowed.
// It runs through "sh -c" in the config file's folder, so it is checked
// only for being there.
func (e *entryParser) headersHelper(v *hujson.Value) string {
	s, ok := e.expand(v, ref(fieldHeadersHelper), true)
	if !ok {
		return ""
	}
	if msg := checkNoNUL(s); msg != "" {
		e.errorAt(v.StartOffset, "headersHelper "+msg)
		return ""
	}
	return s
}
