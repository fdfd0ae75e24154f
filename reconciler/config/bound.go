package config

import (
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler/redact"
)

// boundTexts bounds every diagnostic message and invalid reason in place.
// It runs last, on what ParseFile and Load return, so that no message
// built on the way (quoting a name, adding a "keeping …" suffix) escapes
// the bound.
func boundTexts(diags []messages.Diagnostic, invalid []messages.InvalidServer) {
	for i := range diags {
		diags[i].Message = redact.Bound(diags[i].Message)
	}
	for i := range invalid {
		invalid[i].Reason = redact.Bound(invalid[i].Reason)
	}
}
