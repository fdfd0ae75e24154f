package config

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/mcpvisor/mcpvisor/messages"
)

// BaseEnvironment is what a stdio server inherits from mcpvisor's
// environment when its inheritEnv is not true: enough to find programs,
// the home directory, temporary files and the locale. A name ending in "*"
// is a prefix. MCPVISOR_SERVE_PID is kept so that a gateway launched by
// a gateway still refuses to start (see mcpvisor serve).
var BaseEnvironment = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TZ", "TMPDIR", "LANG", "LC_*",
	"MCPVISOR_SERVE_PID",
}

// InheritedEnviron returns the part of environ ("NAME=value" entries, in
// order) that a server with the given policy inherits: all of it for a
// nil policy or All, else the BaseEnvironment and the policy's Allow
// names. The server's own env is added by the caller.
func InheritedEnviron(environ []string, policy *messages.EnvPolicy) []string {
	if policy == nil || policy.All {
		return environ
	}
	out := make([]string, 0, len(BaseEnvironment)+len(policy.Allow))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if matchesAny(name, BaseEnvironment) || matchesAny(name, policy.Allow) {
			out = append(out, kv)
		}
	}
	return out
}

// matchesAny reports whether name is one of patterns, where a pattern
// ending in "*" matches every name with that prefix.
func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// ParseEnvPolicy reads an inheritance policy as written on a command line:
// "all" (or "true"), "none" (or "false": the base only), or a
// comma-separated list of names and prefixes ("AWS_PROFILE,NODE_*") inherited
// besides the base.
func ParseEnvPolicy(s string) (*messages.EnvPolicy, error) {
	switch strings.TrimSpace(s) {
	case "all", "true":
		return &messages.EnvPolicy{All: true}, nil
	case "none", "false", "":
		return &messages.EnvPolicy{}, nil
	}
	var allow []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if msg := checkEnvPattern(p); msg != "" {
			return nil, fmt.Errorf("%q %s", p, msg)
		}
		allow = append(allow, p)
	}
	return &messages.EnvPolicy{Allow: allow}, nil
}

// checkEnvPattern requires a variable name, optionally ending in "*".
func checkEnvPattern(p string) string {
	name, _ := strings.CutSuffix(p, "*")
	if name == "" && p != "*" || name != "" && !isVariableName(name) {
		return `is not a variable name or a prefix such as "NODE_*": use letters, digits and "_"`
	}
	if p == "*" {
		return `would inherit everything: write true instead`
	}
	return ""
}

// envPolicy reads inheritEnv: true (every variable), false (the base
// only) or an array of names and prefixes inherited besides the base.
func (e *entryParser) envPolicy(v *hujson.Value) *messages.EnvPolicy {
	if lit, ok := v.Value.(hujson.Literal); ok && (lit.Kind() == 't' || lit.Kind() == 'f') {
		return &messages.EnvPolicy{All: lit.Bool()}
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		e.errorAt(v.StartOffset, fmt.Sprintf(`%s must be true, false or an array of variable names such as ["PATH", "NODE_*"], not %s`, fieldInheritEnv, kindName(v.Value)))
		return nil
	}
	policy := &messages.EnvPolicy{}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		label := fieldRef{field: fieldInheritEnv, index: i}
		s, ok := e.str(el, label)
		if !ok {
			continue
		}
		if msg := checkEnvPattern(s.value); msg != "" {
			e.errorAt(el.StartOffset, label.String()+" "+msg)
			continue
		}
		policy.Allow = append(policy.Allow, s.value)
	}
	return policy
}

// appendEnvPolicy appends a policy to a fingerprint encoding. An unset
// policy appends nothing, so that specs without one keep the fingerprints
// they had before the field existed; a set one is tagged with the field's
// key, so that it cannot be confused with a later optional field.
func appendEnvPolicy(b []byte, p *messages.EnvPolicy) []byte {
	if p == nil {
		return b
	}
	b = appendString(b, fieldInheritEnv)
	if p.All {
		return binary.AppendUvarint(b, 1)
	}
	b = binary.AppendUvarint(b, 0)
	return appendList(b, p.Allow)
}

func sameEnvPolicy(a, b *messages.EnvPolicy) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.All == b.All && slices.Equal(a.Allow, b.Allow)
}
