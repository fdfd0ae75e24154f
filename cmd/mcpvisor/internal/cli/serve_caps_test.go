package cli

import (
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// --assume-client-capabilities defaults to none: a server that starts
// before any client is told nothing, never "everything" (issue 24, item
// 5); a list is what it says, and an unknown name is refused.
func TestServeFlags_AssumeClientCapabilities(t *testing.T) {
	t.Parallel()
	noEnv := IO{Stderr: io.Discard, LookupEnv: func(string) (string, bool) { return "", false }}
	f, err := parseServeFlags(nil, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&mcp.ClientCapabilities{}, f.assumeCaps); diff != "" {
		t.Errorf("default (-want +got):\n%s", diff)
	}
	f, err = parseServeFlags([]string{"--assume-client-capabilities", "elicitation,elicitation-url"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}}
	if diff := cmp.Diff(want, f.assumeCaps); diff != "" {
		t.Errorf("elicitation,elicitation-url (-want +got):\n%s", diff)
	}
	if _, err := parseServeFlags([]string{"--assume-client-capabilities", "everything"}, noEnv); err == nil {
		t.Error("an unknown capability was accepted")
	}
}
