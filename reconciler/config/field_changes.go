package config

import "github.com/mcpvisor/mcpvisor/messages"

// What a change of each field does to a running server, as the
// serverFields table says, and the fields two specs differ in.

// FieldEffect says what changing a field of a running server's spec does.
type FieldEffect string

// The effects of a field change.
const (
	// EffectRestart: the field shapes the session (it is in the fingerprint);
	// a change restarts the server, make-before-break.
	EffectRestart FieldEffect = "restart"
	// EffectLive: the change applies to the running server without a restart
	// (tool filters, call timeout, restart policy) or at its next connect
	// (connect timeout).
	EffectLive FieldEffect = "live"
	// EffectRuns: the field decides whether the server runs at all (disabled).
	EffectRuns FieldEffect = "runs"
	// EffectIdentity: the field names or locates the entry, or is derived from
	// the others; it is not a setting.
	EffectIdentity FieldEffect = "identity"
)

// FieldInfo is what the table says about one field, for tools and docs
// that list the fields (and for tests).
type FieldInfo struct {
	// Key is the field's name in a config entry; "" for a derived field.
	Key string
	// SpecField is the messages.ServerSpec field it fills.
	SpecField string
	// Stdio and Remote say which transports read it.
	Stdio, Remote bool
	Effect        FieldEffect
	// Secret says the field can hold secrets, which are redacted.
	Secret bool
}

// ServerFields lists every field of a server spec, in table order.
func ServerFields() []FieldInfo {
	out := make([]FieldInfo, len(serverFields))
	for i, f := range serverFields {
		out[i] = FieldInfo{Key: f.key, SpecField: f.spec, Stdio: f.reads&forStdio != 0, Remote: f.reads&forRemote != 0,
			Effect: f.effect, Secret: f.secrets != nil}
	}
	return out
}

// changedFields names the fields with the given effect whose values
// differ between two specs, in table order.
func changedFields(old, new *messages.ServerSpec, effect FieldEffect) []string {
	var out []string
	for i := range serverFields {
		f := &serverFields[i]
		if f.effect == effect && !f.equal(old, new) {
			out = append(out, f.key)
		}
	}
	return out
}

// LiveChanges names the fields that differ between two specs of a server
// and apply without a restart (tool filters, timeouts, restart policy), in
// a fixed order. Values are never named: they may be secrets.
func LiveChanges(old, new messages.ServerSpec) []string {
	return changedFields(&old, &new, EffectLive)
}

// ChangedFields names the session-affecting fields (EffectRestart) that
// differ between two specs, in a fixed order. Values are never named: they
// may be secrets.
func ChangedFields(old, new messages.ServerSpec) []string {
	out := changedFields(&old, &new, EffectRestart)
	if len(out) == 0 {
		// Same fields, different fingerprint: the fingerprint scheme changed.
		out = append(out, "fingerprint")
	}
	return out
}
