package gateway_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
	"github.com/mcpvisor/mcpvisor/actors/gateway"
	"github.com/mcpvisor/mcpvisor/messages"
)

// shortHash is the stable hash a shortened prefix or name ends with: the
// first 6 hex digits of the SHA-256 of what was cut, as for long server
// names (reconciler/config DerivePrefix).
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:6]
}

// feedback is the name from the field: Claude Code, behind an entry named
// mcpvisor, would call it mcp__mcpvisor__desktop-commander__give_feedback_to_desktop_commander,
// 68 characters, which the Anthropic API refuses (it takes 64).
const feedback = "give_feedback_to_desktop_commander"

// shortenedWarnings are the logged reports of shortened names.
func shortenedWarnings(logs *observer.ObservedLogs) []observer.LoggedEntry {
	return logs.FilterMessageSnippet("name shortened").All()
}

// TestGateway_LongNameFitsClaudeCodeAndCallsReachTheTool: by default a
// name is exposed within 48 characters (64 less 16 for the client's
// wrapping), so that mcp__mcpvisor__<name> stays within 64; the prefix is
// shortened first, with its hash; a call of the shortened name reaches
// the server's tool under its own name; the shortening is reported once,
// with the server, the tool, the length and the fix.
func TestGateway_LongNameFitsClaudeCodeAndCallsReachTheTool(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &fakeSource{tools: []messages.Tool{tool("desktop-commander", feedback, "Feedback."), tool("desktop-commander", "read_file", "Reads.")}}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	short := "deskt-" + shortHash("desktop-commander") + "__" + feedback
	c.waitTools(ctx, short, "desktop-commander__read_file")
	if len(short) != 48 || len("mcp__mcpvisor__"+short) > 64 {
		t.Fatalf("%q is %d characters, %d in Claude Code", short, len(short), len("mcp__mcpvisor__"+short))
	}
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: short, Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "called desktop-commander__"+feedback {
		t.Fatalf("the call reached %q, want the tool under its own qualified name", got)
	}

	// The same catalog again reports nothing new; another server's
	// change, applied after it, says when it was applied.
	h.toolsChanged("desktop-commander", src.tools...)
	h.toolsChanged("gh", tool("gh", "create_issue", "Creates."))
	c.waitTools(ctx, short, "desktop-commander__read_file", "gh__create_issue")
	warnings := shortenedWarnings(h.logs)
	if len(warnings) != 1 {
		t.Fatalf("%d warnings of shortened names, want 1: %+v", len(warnings), warnings)
	}
	fields := warnings[0].ContextMap()
	want := map[string]any{"server": "desktop-commander", "name": feedback, "exposed": short, "length": int64(53),
		"claude_code_length": int64(68), "claude_code_name": "mcp__mcpvisor__desktop-commander__" + feedback, "max_name_length": int64(64)}
	for k, v := range want {
		if fields[k] != v {
			t.Errorf("warning field %s = %v, want %v", k, fields[k], v)
		}
	}
	for _, fix := range []string{`"prefix"`, "shorter entry name", "--names bare"} {
		if !strings.Contains(fields["fix"].(string), fix) {
			t.Errorf("fix %q does not say %q", fields["fix"], fix)
		}
	}
}

// TestGateway_ShortenedNamesAreTheSameOnEveryGateway: two gateways over
// one fleet (a restart, a replica) expose the same shortened names.
func TestGateway_ShortenedNamesAreTheSameOnEveryGateway(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	tools := []messages.Tool{
		tool("desktop-commander", feedback, "Feedback."),
		tool("a-server-whose-name-is-long-enough-to-be-cut", "list_everything_there_is_to_list", "Lists."),
	}
	var exposed [][]string
	for range 2 {
		h := startGateway(t, &fakeSource{tools: slices.Clone(tools)})
		c := h.connectInMemory(ctx, "")
		names := c.names(ctx)
		for len(names) < len(tools) {
			c.expectChange(ctx)
			names = c.names(ctx)
		}
		exposed = append(exposed, names)
	}
	if diff := cmp.Diff(exposed[0], exposed[1]); diff != "" {
		t.Fatalf("the second gateway names the tools otherwise (-first +second):\n%s", diff)
	}
}

// TestGateway_LongNamesThatDifferOnlyAtTheEndStayApart: names cut alike
// keep their own hashes, so each is exposed and each call reaches its
// own tool; likewise two long prefixes that differ only at the end.
func TestGateway_LongNamesThatDifferOnlyAtTheEndStayApart(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	long := "an_operation_whose_name_says_everything_it_does_in_full_"
	one, two := "a-server-with-a-rather-long-name-number-1", "a-server-with-a-rather-long-name-number-2"
	src := &fakeSource{tools: []messages.Tool{tool(one, long+"a", "A."), tool(one, long+"b", "B."), tool(two, long+"a", "A.")}}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	names := c.names(ctx)
	for len(names) < 3 {
		c.expectChange(ctx)
		names = c.names(ctx)
	}
	reached := map[string]string{}
	for _, name := range names {
		if len(name) > 48 {
			t.Errorf("%q is %d characters, over 48", name, len(name))
		}
		res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		reached[name] = text(t, res)
	}
	got := slices.Sorted(func(yield func(string) bool) {
		for _, v := range reached {
			if !yield(v) {
				return
			}
		}
	})
	want := []string{"called " + one + "__" + long + "a", "called " + one + "__" + long + "b", "called " + two + "__" + long + "a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("calls of %v reached (-want +got):\n%s", names, diff)
	}
	if len(h.gw.Conflicts()) != 0 {
		t.Fatalf("conflicts: %+v", h.gw.Conflicts())
	}
}

// TestGateway_BareNamesAreShortenedToo: --names bare bounds names the
// same way (a bare name has only itself to cut) and reports it.
func TestGateway_BareNamesAreShortenedToo(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	long := "an_operation_whose_bare_name_alone_is_over_the_budget"
	h := startGateway(t, &fakeSource{tools: []messages.Tool{tool("srv", long, "Long.")}}, gateway.WithNames(gateway.NamesBare))
	c := h.connectInMemory(ctx, "")
	short := long[:41] + "-" + shortHash(long)
	c.waitTools(ctx, short)
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: short, Arguments: map[string]any{"message": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "called srv__"+long {
		t.Fatalf("the call reached %q", got)
	}
	if n := len(shortenedWarnings(h.logs)); n != 1 {
		t.Fatalf("%d warnings of shortened names, want 1", n)
	}
}

// TestGateway_LongPromptNamesAreShortened: prompts are named as tools
// are, and a get of the shortened name reaches the prompt.
func TestGateway_LongPromptNamesAreShortened(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	name := "summarise_the_feedback_of_the_week"
	h := startGateway(t, &fakeSource{prompts: []messages.Prompt{{Server: "desktop-commander", Prefix: "desktop-commander", Name: name}}})
	c := h.connectInMemory(ctx, "")
	short := "deskt-" + shortHash("desktop-commander") + "__" + name
	for {
		res, err := c.cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Prompts) == 1 {
			if res.Prompts[0].Name != short {
				t.Fatalf("prompt exposed as %q, want %q", res.Prompts[0].Name, short)
			}
			break
		}
		select {
		case <-c.promptsChanged:
		case <-ctx.Done():
			t.Fatal("the prompt was never listed")
		}
	}
	got, err := c.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: short})
	if err != nil {
		t.Fatal(err)
	}
	if txt := got.Messages[0].Content.(*mcp.TextContent).Text; txt != "got desktop-commander__"+name {
		t.Fatalf("the get reached %q", txt)
	}
}

// TestGateway_NoNameBoundWarnsOfClaudeCode: with no bound
// (WithMaxNameLength(0)) a name is exposed whole, and one that passes 64
// characters as mcp__mcpvisor__<name> is reported once, with the fix.
func TestGateway_NoNameBoundWarnsOfClaudeCode(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	h := startGateway(t, &fakeSource{tools: []messages.Tool{tool("desktop-commander", feedback, "Feedback.")}}, gateway.WithMaxNameLength(0))
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "desktop-commander__"+feedback)
	warnings := h.logs.FilterMessageSnippet("passes 64 characters in Claude Code").All()
	if len(warnings) != 1 {
		t.Fatalf("%d Claude Code warnings, want 1", len(warnings))
	}
	if f := warnings[0].ContextMap(); f["claude_code_length"] != int64(68) || f["server"] != "desktop-commander" || f["name"] != feedback {
		t.Fatalf("warning fields %v", f)
	}
	if n := len(shortenedWarnings(h.logs)); n != 0 {
		t.Fatalf("%d warnings of shortened names with no bound", n)
	}
}

// TestGateway_CallOfAShortenedNameFindsItsStartingServer: before a
// server's tools arrive, a call of a shortened name is still traced to
// its server by the shortened prefix (it is not an unknown tool) and goes
// to the Source under the server's own prefix, where it waits for the
// server to start (early.go).
func TestGateway_CallOfAShortenedNameFindsItsStartingServer(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	src := &fakeSource{tools: []messages.Tool{tool("alpha", "echo", "Echoes.")}}
	src.status = messages.Status{Generation: 1, ObservedGeneration: 1, Servers: []messages.ServerStatus{
		{Name: "alpha", Prefix: "alpha", State: messages.StateReady},
		{Name: "desktop-commander", Prefix: "desktop-commander", State: messages.StateStarting},
	}}
	h := startGateway(t, src)
	c := h.connectInMemory(ctx, "")
	c.waitTools(ctx, "alpha__echo")
	short := "deskt-" + shortHash("desktop-commander") + "__" + feedback
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: short, Arguments: map[string]any{}})
	answer := fmt.Sprint(err)
	if err == nil {
		answer = text(t, res)
	}
	if want := "called desktop-commander__" + feedback; answer != want {
		t.Fatalf("call of %s answered %q, want %q: the Source asked under the server's own prefix", short, answer, want)
	}
}
