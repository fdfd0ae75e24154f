package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// The members of a server's oauth object.
const (
	oauthClientID          = "clientId"
	oauthClientSecret      = "clientSecret"
	oauthScopes            = "scopes"
	oauthClientMetadataURL = "clientMetadataUrl"
	oauthGrant             = "grant"
	oauthPrivateKeyFile    = "privateKeyFile"
	oauthIssuer            = "issuer"
	oauthTokenURL          = "tokenUrl"
)

// oauth reads a server's oauth object. Every string is expanded like
// headers are; privateKeyFile also takes a leading "~".
func (e *entryParser) oauth(v *hujson.Value) *messages.OAuthSpec {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be an object such as {"clientId": "..."}, not %s`, fieldOAuth, kindName(v.Value)))
		return nil
	}
	out := &messages.OAuthSpec{}
	seen := map[string]bool{}
	for i := range obj.Members {
		m := &obj.Members[i]
		key := decodeString(m.Name.Value.(hujson.Literal), m.Name.StartOffset)
		label := fieldRef{field: fieldOAuth, index: -1, key: key.value}
		if seen[key.value] {
			e.errorAt(key.start, fmt.Sprintf("%s is given more than once: remove all but one", label))
			continue
		}
		seen[key.value] = true
		switch key.value {
		case oauthScopes:
			out.Scopes = e.stringList(&m.Value, fieldOAuth+"."+oauthScopes, true)
			continue
		case oauthClientID, oauthClientSecret, oauthClientMetadataURL, oauthGrant, oauthPrivateKeyFile, oauthIssuer, oauthTokenURL:
		default:
			e.warnAt(key.start, fmt.Sprintf("%s is not an oauth setting mcpvisor knows and is ignored: remove it", label))
			continue
		}
		s, ok := e.expand(&m.Value, label, key.value == oauthPrivateKeyFile)
		if !ok {
			continue
		}
		if strings.ContainsAny(s, "\r\n\x00") {
			e.errorAt(m.Value.StartOffset, label.String()+" contains a line break or NUL byte (after expansion): remove it")
			continue
		}
		switch key.value {
		case oauthClientID:
			out.ClientID = s
		case oauthClientSecret:
			out.ClientSecret = s
		case oauthClientMetadataURL:
			out.ClientMetadataURL = s
		case oauthPrivateKeyFile:
			out.PrivateKeyFile = s
		case oauthIssuer, oauthTokenURL:
			if reason := authServerURLProblem(s); reason != "" {
				e.errorAt(m.Value.StartOffset, fmt.Sprintf("%s %s", label, reason))
				continue
			}
			if key.value == oauthIssuer {
				out.Issuer = s
			} else {
				out.TokenURL = s
			}
		case oauthGrant:
			if s != messages.GrantAuthorizationCode && s != messages.GrantClientCredentials {
				e.errorAt(m.Value.StartOffset, fmt.Sprintf("%s must be %q or %q, not %q", label, messages.GrantAuthorizationCode, messages.GrantClientCredentials, s))
				continue
			}
			out.Grant = s
		}
	}
	if out.Grant == messages.GrantClientCredentials && out.ClientID == "" {
		e.errorAt(v.StartOffset, fieldOAuth+": the client_credentials grant needs a clientId (and a clientSecret or a privateKeyFile)")
	}
	if out.Grant == messages.GrantClientCredentials && out.ClientSecret == "" && out.PrivateKeyFile == "" {
		e.errorAt(v.StartOffset, fieldOAuth+": the client_credentials grant needs a clientSecret or a privateKeyFile")
	}
	if (out.ClientSecret != "" || out.PrivateKeyFile != "") && out.Issuer == "" && out.TokenURL == "" {
		e.warnAt(v.StartOffset, fieldOAuth+": a clientSecret or privateKeyFile without an issuer or tokenUrl goes to the first authorization server the server names "+
			"(then held): name yours with oauth.issuer or oauth.tokenUrl")
	}
	return out
}

// authServerURLProblem is what is wrong with an issuer or token URL, or
// "": it must be an absolute https URL (http only on a loopback host),
// without a fragment.
func authServerURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "must be an absolute https URL such as \"https://auth.example.com\""
	case u.Fragment != "":
		return "must not have a #fragment"
	case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return "must use https (http only on localhost, 127.0.0.1 or ::1)"
	}
	return ""
}

// appendOAuth appends the oauth object's canonical encoding; nil appends
// nothing, so that fingerprints of servers without one do not change.
func appendOAuth(b []byte, o *messages.OAuthSpec) []byte {
	if o == nil {
		return b
	}
	b = appendString(b, "oauth")
	for _, s := range []string{o.ClientID, o.ClientSecret, o.ClientMetadataURL, o.Grant, o.PrivateKeyFile} {
		b = appendString(b, s)
	}
	b = appendList(b, o.Scopes)
	if o.Issuer != "" || o.TokenURL != "" { // fingerprints without them stay as they were
		b = appendString(appendString(b, o.Issuer), o.TokenURL)
	}
	return b
}

func sameOAuth(a, b *messages.OAuthSpec) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ClientID == b.ClientID && a.ClientSecret == b.ClientSecret && a.ClientMetadataURL == b.ClientMetadataURL &&
		a.Grant == b.Grant && a.PrivateKeyFile == b.PrivateKeyFile && slices.Equal(a.Scopes, b.Scopes) &&
		a.Issuer == b.Issuer && a.TokenURL == b.TokenURL
}

// oauthSecrets is the client secret, if any.
func oauthSecrets(s *messages.ServerSpec) []string {
	if s.OAuth == nil || s.OAuth.ClientSecret == "" {
		return nil
	}
	return []string{s.OAuth.ClientSecret}
}
