package reconciler

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

// SecretsOf lists the secrets of one server spec, expanded, for NewRedactor
// or Redactor.With:
//
//   - every env value;
//   - every header value;
//   - the credential after an authorization scheme ("Bearer ", "Basic ",
//     "Token ") in an env or header value;
//   - the url's user name, password and user info, every query value
//     (decoded and raw) and its path (decoded and raw) unless it is just "/";
//   - the password and user info of an argument that is a URL with
//     credentials, as in a database connection string.
//
// Values shorter than MinSecretBytes are listed too and dropped by
// NewRedactor. The values of the environment a stdio server inherits are not
// in the spec: the caller adds them to its base Redactor. The result is
// sorted and without duplicates.
func SecretsOf(spec messages.ServerSpec) []string {
	var out []string
	addValue := func(v string) {
		out = append(out, v)
		if cred, ok := credentialOf(v); ok {
			out = append(out, cred)
		}
	}
	for _, v := range spec.Env {
		addValue(v)
	}
	for _, v := range spec.Headers {
		addValue(v)
	}
	if spec.URL != "" {
		out = append(out, urlSecrets(spec.URL, true)...)
	}
	for _, a := range spec.Args {
		if strings.Contains(a, "://") && strings.Contains(a, "@") {
			out = append(out, urlSecrets(a, false)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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
	if !full {
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
