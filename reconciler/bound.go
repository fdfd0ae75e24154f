package reconciler

import "github.com/mcpvisor/mcpvisor/messages"

// MaxTextBytes bounds every text mcpvisor builds from its input: a
// diagnostic, an invalid entry's reason, a warning or an error. Config
// files and servers are free to hold an 8 KiB server name or a megabyte
// stderr line; what mcpvisor says about them stays readable and cheap to
// carry in an event.
const MaxTextBytes = MaxRedactedBytes

// BoundText cuts s to MaxTextBytes on a UTF-8 boundary, ending in "…" when
// cut. Text that fits is returned as is.
func BoundText(s string) string { return bound(s) }

// boundTexts bounds every diagnostic message and invalid reason in place.
// It runs last, on what ParseFile and Load return, so that no message
// built on the way (quoting a name, adding a "keeping …" suffix) escapes
// the bound.
func boundTexts(diags []messages.Diagnostic, invalid []messages.InvalidServer) {
	for i := range diags {
		diags[i].Message = bound(diags[i].Message)
	}
	for i := range invalid {
		invalid[i].Reason = bound(invalid[i].Reason)
	}
}
