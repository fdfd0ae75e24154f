package config

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// The preview functions of serverFields: each adds to the preview the
// lines that say what its field makes mcpvisor do, from the value as
// written. A row without one fails TestServerFields_CoverEverySpecField.

// previewType shows a type that is not one mcpvisor knows; a known one is
// the heading of the entry (see previewer.transportKind).
func previewType(p *previewer, v *hujson.Value) {
	if s, ok := rawString(v); ok {
		if _, known := transportOf(s); known {
			return
		}
	}
	p.out.Odd = true
	p.add(fieldType, "type", p.str(v)+" (not a type mcpvisor knows)")
}

// previewCommand starts the line of the program a stdio entry runs.
func previewCommand(p *previewer, v *hujson.Value) {
	p.add(fieldCommand, "runs", p.str(v))
}

// previewArgs adds the arguments to the command's line.
func previewArgs(p *previewer, v *hujson.Value) {
	p.extend(fieldCommand, fieldArgs, "args", p.strs(v))
}

// previewCwd shows the working directory, and what a relative one is
// relative to.
func previewCwd(p *previewer, v *hujson.Value) {
	text := p.str(v)
	if s, ok := rawString(v); ok && !filepath.IsAbs(s) && tildeLen(s) == 0 && !strings.HasPrefix(s, "$") {
		text += " (in " + strconv.Quote(p.dir()) + ")"
	}
	p.add(fieldCwd, "cwd", text)
}

func previewURL(p *previewer, v *hujson.Value) {
	p.add(fieldURL, "url", p.str(v))
}

// previewEnv shows each variable the server gets, NAME=value as written;
// a literal credential (a secret-looking name, no reference) is hidden.
func previewEnv(p *previewer, v *hujson.Value) {
	p.eachMember(fieldEnv, "env", v, func(name, value string) string {
		return quoteKey(name) + "=" + maybeHidden(value, hasSecretWord(name))
	})
}

// previewHeaders shows each header sent to the url, "Name: value" as
// written; a literal credential is hidden.
func previewHeaders(p *previewer, v *hujson.Value) {
	p.eachMember(fieldHeaders, "header", v, func(name, value string) string {
		return quoteKey(name) + ": " + maybeHidden(value, isCredentialHeader(name, value))
	})
}

// previewEnvFile shows the file whose variables are added to the env.
func previewEnvFile(p *previewer, v *hujson.Value) {
	text := "reads " + p.str(v)
	if s, ok := rawString(v); ok && !filepath.IsAbs(s) && tildeLen(s) == 0 && !strings.HasPrefix(s, "$") {
		text += " (in " + strconv.Quote(defaultWorkspace(p.path)) + ")"
	}
	p.add(fieldEnvFile, "envFile", text+"; its variables go into the server's env")
}

// previewHeadersHelper shows the shell command exactly as the transport
// runs it (see runHeadersHelper in actors/internal/transport).
func previewHeadersHelper(p *previewer, v *hujson.Value) {
	s, ok := rawString(v)
	if !ok {
		p.out.Odd = true
		p.add(fieldHeadersHelper, "headersHelper", "runs: "+rawText(v))
		return
	}
	p.add(fieldHeadersHelper, "headersHelper", "runs: /bin/sh -c "+strconv.Quote(s)+" in "+strconv.Quote(p.dir())+
		", at connect and after a 401; what it prints is sent as headers")
}

// previewInheritEnv says how much of the user's environment the server
// gets.
func previewInheritEnv(p *previewer, v *hujson.Value) {
	text := rawText(v)
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == 't' {
		text += " (every variable of your environment)"
	}
	p.add(fieldInheritEnv, "inheritEnv", text)
}

// previewRaw shows a field whose raw value says all there is to say (a
// timeout, a tool list, a flag).
func previewRaw(key string) func(p *previewer, v *hujson.Value) {
	return func(p *previewer, v *hujson.Value) { p.add(key, key, rawText(v)) }
}

// previewOAuth shows each member of the oauth object, and where a client
// credential (a secret or a private key) goes.
func previewOAuth(p *previewer, v *hujson.Value) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.out.Odd = true
		p.add(fieldOAuth, "oauth", rawText(v))
		return
	}
	grant, credential, goesTo := "", false, ""
	for i := range obj.Members {
		m := &obj.Members[i]
		key, mv := memberName(m), &m.Value
		text := quoteKey(key) + " "
		switch key {
		case oauthClientSecret:
			credential = true
			s, ok := rawString(mv)
			if !ok {
				text += p.str(mv)
				break
			}
			text += maybeHidden(s, true)
		case oauthPrivateKeyFile:
			credential = true
			text += "reads " + p.str(mv) + " (a private key that signs the token requests)"
		case oauthScopes:
			text += p.strs(mv)
		case oauthGrant:
			grant = p.str(mv)
			text += grant
		case oauthIssuer, oauthTokenURL:
			goesTo += " " + quoteKey(key) + " " + p.str(mv)
			text += p.str(mv)
		case oauthClientID, oauthClientMetadataURL:
			text += p.str(mv)
		default:
			text += rawText(mv)
		}
		p.extendOAuth(text)
	}
	if grant == "" {
		p.extendOAuth("grant " + strconv.Quote("authorization_code") + " (the default: you log in with mcpvisor auth login)")
	}
	if !credential {
		return
	}
	if goesTo == "" {
		goesTo = " the authorization server that the server's url names in its OAuth metadata, whichever it is when a token is fetched"
	}
	p.add(fieldOAuth, "secret goes to", strings.TrimSpace(goesTo))
}

// extendOAuth adds one line of the oauth object.
func (p *previewer) extendOAuth(text string) {
	p.add(fieldOAuth, "oauth", text)
}

// eachMember adds one line per member of an object field, each shown by
// show; a value that is not an object is shown raw.
func (p *previewer) eachMember(field, label string, v *hujson.Value, show func(name, value string) string) {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.out.Odd = true
		p.add(field, label, rawText(v))
		return
	}
	if len(obj.Members) == 0 {
		p.add(field, label, "{}")
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		s, ok := rawString(&m.Value)
		if !ok {
			p.out.Odd = true
			p.add(field, label, quoteKey(memberName(m))+" "+rawText(&m.Value))
			continue
		}
		p.add(field, label, show(memberName(m), s))
	}
}

// maybeHidden quotes a value as written, except a credential written in
// the file itself (it refers to no variable or input), which is hidden:
// the approver needs to see where secrets come from and go, not the
// literal ones.
func maybeHidden(value string, credential bool) string {
	if !credential || value == "" {
		return strconv.Quote(value)
	}
	var vars, inputs []string
	refsIn(value, &vars, &inputs)
	if len(vars)+len(inputs) > 0 {
		return strconv.Quote(value)
	}
	return "(written in the file; value hidden)"
}

// isCredentialHeader reports whether a header carries a credential: its
// name says so, or its value starts with an authorization scheme.
func isCredentialHeader(name, value string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	return hasSecretWord(name) || isScheme(strings.Fields(value + " x")[0])
}
