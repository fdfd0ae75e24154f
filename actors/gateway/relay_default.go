//lint:file-ignore SA1019 sampling and roots are deprecated from protocol 2026-07-28 on (SEP-2577) but are what a server may be told.

package gateway

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientCapabilityNames are the names ParseClientCapabilities takes, in
// the order it documents them.
var ClientCapabilityNames = []string{"sampling", "elicitation", "elicitation-url", "roots"}

// ParseClientCapabilities reads a Relay.Default from its flag form: "none"
// (or empty), or a comma-separated list of sampling, elicitation (form
// mode), elicitation-url (url mode) and roots.
func ParseClientCapabilities(list string) (*mcp.ClientCapabilities, error) {
	caps := &mcp.ClientCapabilities{}
	list = strings.TrimSpace(list)
	if list == "" || list == "none" {
		return caps, nil
	}
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "sampling":
			caps.Sampling = &mcp.SamplingCapabilities{}
		case "elicitation":
			elicitation(caps).Form = &mcp.FormElicitationCapabilities{}
		case "elicitation-url":
			elicitation(caps).URL = &mcp.URLElicitationCapabilities{}
		case "roots":
			caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
		default:
			return nil, fmt.Errorf("client capability %q: use none, or a comma-separated list of %s", strings.TrimSpace(name), strings.Join(ClientCapabilityNames, ", "))
		}
	}
	return caps, nil
}

func elicitation(caps *mcp.ClientCapabilities) *mcp.ElicitationCapabilities {
	if caps.Elicitation == nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{}
	}
	return caps.Elicitation
}
