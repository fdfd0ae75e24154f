package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// loginPages opens an authorization URL in the browser without ever
// putting it in a process's arguments: the URL carries the login's state
// and PKCE challenge, and every local user can read a command line
// (/proc/PID/cmdline, ps). The browser is given the path of a page that
// redirects to the URL instead: mode 0600, in a fresh directory of mode
// 0700 under $XDG_RUNTIME_DIR (else the temporary directory), removed
// when the login ends.
type loginPages struct {
	lookup func(string) (string, bool)
	dir    string // created by the first open
}

// open writes a page that redirects to authURL and starts the browser
// on it: $BROWSER PATH when BROWSER is set, else xdg-open or open when
// present. Without a browser it does nothing; the caller has printed
// the URL.
func (p *loginPages) open(authURL string) error {
	argv := browserCommand(p.lookup)
	if len(argv) == 0 {
		return nil
	}
	page, err := p.write(authURL)
	if err != nil {
		return err
	}
	return exec.Command(argv[0], append(argv[1:], page)...).Run()
}

// remove deletes the pages and their directory.
func (p *loginPages) remove() {
	if p.dir != "" {
		_ = os.RemoveAll(p.dir)
	}
}

// write writes a new page redirecting to authURL and returns its path.
func (p *loginPages) write(authURL string) (string, error) {
	if p.dir == "" {
		dir, err := os.MkdirTemp(p.base(), "mcpvisor-login-") // mode 0700
		if err != nil {
			return "", fmt.Errorf("login page: %w", err)
		}
		p.dir = dir
	}
	f, err := os.CreateTemp(p.dir, "login-*.html") // mode 0600
	if err != nil {
		return "", fmt.Errorf("login page: %w", err)
	}
	_, err = f.WriteString(redirectPage(authURL))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("login page: %w", err)
	}
	return f.Name(), nil
}

// base is $XDG_RUNTIME_DIR when it is a directory only its owner can
// enter, else the temporary directory (where the fresh 0700 directory
// keeps others out all the same).
func (p *loginPages) base() string {
	if d, ok := p.lookup("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(d) {
		if info, err := os.Stat(d); err == nil && info.IsDir() && info.Mode().Perm()&0o077 == 0 {
			return d
		}
	}
	return os.TempDir()
}

// redirectPage is a page that sends the browser on to authURL at once
// (a refresh, and a script for browsers that ignore it), with a link for
// the person, and no referrer for the authorization server.
func redirectPage(authURL string) string {
	attr := html.EscapeString(authURL)
	js, _ := json.Marshal(authURL) // escapes <, > and &: safe inside <script>
	return `<!doctype html>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=` + attr + `">
<title>mcpvisor login</title>
<script>location.replace(` + string(js) + `)</script>
<p><a href="` + attr + `">Continue to the authorization server</a></p>
`
}

// browserCommand is $BROWSER (its first entry, split into words) when
// set, else xdg-open or open when present, else nothing.
func browserCommand(lookup func(string) (string, bool)) []string {
	if b, ok := lookup("BROWSER"); ok && strings.TrimSpace(b) != "" {
		return strings.Fields(strings.Split(b, ":")[0])
	}
	for _, cmd := range []string{"xdg-open", "open"} {
		if p, err := exec.LookPath(cmd); err == nil {
			return []string{p}
		}
	}
	return nil
}
