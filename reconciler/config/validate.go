package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mcpvisor/mcpvisor/messages"
)

// Per-entry validation rules. Each check returns "" when the value is fine,
// or a lowercase message that says what to do. The messages never quote the
// checked value when it may be secret (URLs, header and env values).

// MaxNameBytes bounds a server name. Names are kept as written (a
// repository URL, a path); what a client sees in tool names is the derived
// prefix, which MaxPrefixBytes bounds. This bound only keeps a name
// printable in one status line.
const MaxNameBytes = 1024

// checkName enforces what a server name must be: something. Any other
// text is kept as written; the exposed prefix is derived from it (see
// DerivePrefix).
func checkName(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "server name is empty: give the server a name"
	case len(name) > MaxNameBytes:
		return fmt.Sprintf("server name is %d bytes long: shorten it to at most %d", len(name), MaxNameBytes)
	}
	return ""
}

// transportOf maps the type field to a transport.
func transportOf(typ string) (messages.Transport, bool) {
	switch typ {
	case "stdio":
		return messages.TransportStdio, true
	case "http", "streamable-http":
		return messages.TransportHTTP, true
	case "sse":
		return messages.TransportSSE, true
	}
	return "", false
}

// checkURL requires an absolute http or https URL with a host.
func checkURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "url is not a valid URL: write an absolute http:// or https:// URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "url must start with http:// or https://"
	}
	if u.Host == "" || u.Opaque != "" {
		return "url has no host: write it as http://host[:port]/path or https://…"
	}
	return ""
}

// HasAuthorization reports an Authorization header set by hand.
func HasAuthorization(headers map[string]string) bool {
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// checkCleartextAuth warns when an Authorization header would travel in
// the clear: a plain http:// URL to a host other than the loopback
// interface. Loopback is fine (a local proxy or a test server); anything
// else can be read on the way.
func checkCleartextAuth(rawURL string, headers map[string]string) string {
	if !HasAuthorization(headers) {
		return ""
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || isLoopbackHost(u.Hostname()) {
		return ""
	}
	return "headers: the Authorization header is sent in the clear over http:// to a host that is not loopback: use https://"
}

// isLoopbackHost reports whether host names the loopback interface:
// localhost, 127.0.0.0/8 or ::1.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// checkEnvName rejects names the operating system cannot carry.
func checkEnvName(name string) string {
	switch {
	case name == "":
		return "env has an empty variable name: remove it or name it"
	case strings.ContainsAny(name, "=\x00"):
		return fmt.Sprintf("env variable name %q contains '=' or a NUL byte: rename it", name)
	}
	return ""
}

// checkHeaderName requires an HTTP token (RFC 9110 section 5.6.2).
func checkHeaderName(name string) string {
	if name == "" {
		return "headers has an empty header name: remove it or name it"
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return fmt.Sprintf("header name %q contains a character not allowed in HTTP header names: use letters, digits and -", name)
		}
	}
	return ""
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// checkHeaderValue rejects bytes that would split or corrupt the request.
func checkHeaderValue(v string) string {
	if strings.ContainsAny(v, "\r\n\x00") {
		return "header value contains a line break or NUL byte (after expansion): remove it"
	}
	return ""
}

// checkNoNUL rejects NUL bytes, which cannot be passed to a process.
func checkNoNUL(v string) string {
	if strings.IndexByte(v, 0) >= 0 {
		return "contains a NUL byte (after expansion), which cannot be passed to a process: remove it"
	}
	return ""
}

// parseTimeout accepts a positive Go duration string such as "30s" or
// "500ms".
func parseTimeout(s string) (time.Duration, string) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, `is not a duration: write a number with a unit, such as "30s", "500ms" or "2m"`
	}
	if d <= 0 {
		return 0, `must be positive: write a duration such as "30s", or remove the field to use the default`
	}
	return d, ""
}

// AutostartOf maps an autostart value (the field, or serve's --autostart)
// to a policy.
func AutostartOf(s string) (messages.Autostart, bool) {
	switch a := messages.Autostart(s); a {
	case messages.AutostartEager, messages.AutostartLazy:
		return a, true
	}
	return "", false
}

// restartPolicyOf maps the restart field to a policy.
func restartPolicyOf(s string) (messages.RestartPolicy, bool) {
	switch p := messages.RestartPolicy(s); p {
	case messages.RestartOnFailure, messages.RestartNever:
		return p, true
	}
	return "", false
}
