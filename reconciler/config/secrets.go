package config

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mcpvisor/mcpvisor/messages"
)

// authSchemes are the Authorization schemes whose credential, the part
// after the scheme, is a secret on its own: servers and clients often log
// the token without its "Bearer " prefix.
var authSchemes = []string{"bearer ", "basic ", "token "}

// SecretsOf lists the secrets of one server spec, expanded, for redact.New
// or Redactor.With:
//
//   - every env value;
//   - every header value;
//   - the credential after an authorization scheme ("Bearer ", "Basic ",
//     "Token ") in an env or header value;
//   - the url's user name, password and user info, every query value
//     (decoded and raw) and its path (decoded and raw) unless it is just "/";
//   - credentials written literally in args (see argSecrets).
//
// Values shorter than redact.MinSecretBytes are listed too and dropped by
// redact.New. The values of the environment a stdio server inherits are not
// in the spec: the caller adds them to its base Redactor. The result is
// sorted and without duplicates.
func SecretsOf(spec messages.ServerSpec) []string {
	var out []string
	for i := range serverFields {
		if f := serverFields[i].secrets; f != nil {
			out = append(out, f(&spec)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secretWords mark a flag or variable name whose value is a credential
// ("--api-key", "--auth-token", "GITHUB_TOKEN=", "--db-password").
var secretWords = []string{"key", "token", "secret", "password", "passwd"}

// argSecrets lists the credentials written literally in a command line:
//
//   - the value after an authorization scheme, in the same argument
//     ("Authorization: Bearer tok") or as the next one ("Bearer", "tok");
//   - the value of a flag whose name holds a secret word, as
//     "--api-key VALUE" or "--api-key=VALUE", and of a NAME=VALUE argument
//     whose name does ("-e", "GITHUB_TOKEN=…");
//   - the user info, query values and path of a URL argument (or flag
//     value) with a host, as in "https://h/mcp?api_key=…" or a database
//     connection string.
func argSecrets(args []string) []string {
	var out []string
	for i, a := range args {
		out = append(out, credentialsIn(a)...)
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		if isScheme(a) && next != "" {
			out = append(out, next)
		}
		name, value, hasValue := strings.Cut(a, "=")
		isFlag := strings.HasPrefix(a, "-")
		switch {
		case isFlag && hasValue && hasSecretWord(name):
			out = append(out, value)
		case isFlag && !hasValue && hasSecretWord(a) && next != "" && !strings.HasPrefix(next, "-"):
			out = append(out, next)
		case !isFlag && hasValue && isVariableName(name) && hasSecretWord(name):
			out = append(out, value)
		}
		for _, v := range []string{a, value} {
			if strings.Contains(v, "://") {
				out = append(out, urlSecrets(v, true)...)
			}
		}
	}
	return out
}

// hasSecretWord reports whether a flag or variable name holds a secret
// word, ignoring case and leading dashes.
func hasSecretWord(name string) bool {
	name = strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// isVariableName reports whether s looks like an environment variable's
// name: letters, digits and "_", not starting with a digit.
func isVariableName(s string) bool {
	return s != "" && varNameLen(s) == len(s)
}

// isScheme reports whether s is an authorization scheme on its own.
func isScheme(s string) bool {
	for _, scheme := range authSchemes {
		if strings.EqualFold(s, strings.TrimSpace(scheme)) {
			return true
		}
	}
	return false
}

// credentialsIn lists the word after each authorization scheme in s, as in
// "Authorization: Bearer tok" or "-H 'Basic dXNlcg=='"; the scheme must
// start a word.
func credentialsIn(s string) []string {
	var out []string
	lower := strings.ToLower(s)
	for _, scheme := range authSchemes {
		for off := 0; ; {
			i := strings.Index(lower[off:], scheme)
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(scheme)
			if at > 0 && isWordByte(s[at-1]) {
				continue
			}
			rest := strings.TrimLeft(s[off:], " ")
			if end := strings.IndexAny(rest, " \t\"',;"); end >= 0 {
				rest = rest[:end]
			}
			if rest != "" {
				out = append(out, rest)
			}
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// credentialOf returns the credential of an authorization value such as
// "Bearer abc".
func credentialOf(v string) (string, bool) {
	for _, scheme := range authSchemes {
		if len(v) > len(scheme) && strings.EqualFold(v[:len(scheme)], scheme) {
			if cred := strings.TrimSpace(v[len(scheme):]); cred != "" {
				return cred, true
			}
		}
	}
	return "", false
}

// urlSecrets lists the secret parts of a URL: user info always, and with
// full also the query values and the path.
func urlSecrets(raw string, full bool) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		out = append(out, u.User.Username(), u.User.String())
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
	}
	if !full || u.Host == "" {
		return out
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if _, v, ok := strings.Cut(kv, "="); ok {
			out = append(out, v)
		}
	}
	if u.Path != "" && u.Path != "/" {
		out = append(out, u.Path, u.EscapedPath())
	}
	return out
}

// valueSecrets lists each value of an env or header map, and the
// credential after an authorization scheme in it.
func valueSecrets(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
		if cred, ok := credentialOf(v); ok {
			out = append(out, cred)
		}
	}
	return out
}
