package config

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// roots reads a server's roots: directories (absolute, or relative to the
// config file's directory; ${VAR} expands) or file:// URIs, each given to
// the server as a file:// URI. Other schemes are an error: MCP roots are
// file URIs.
func (e *entryParser) roots(v *hujson.Value) []string {
	list := e.stringList(v, fieldRoots, true)
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		if strings.HasPrefix(s, "file://") {
			u, err := url.Parse(s)
			if err != nil || u.Path == "" {
				e.errorAt(v.StartOffset, "roots: "+strings.TrimSpace(s)+" is not a file:// URI with a path")
				continue
			}
			out = append(out, u.String())
			continue
		}
		if strings.Contains(s, "://") {
			e.errorAt(v.StartOffset, "roots: an element is a URI that is not file://; give a directory or a file:// URI")
			continue
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(filepath.Dir(e.p.path), s)
		}
		out = append(out, (&url.URL{Scheme: "file", Path: filepath.Clean(s)}).String())
	}
	return out
}
