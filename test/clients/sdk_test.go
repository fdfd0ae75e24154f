package clients_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvisor/mcpvisor/test/testctx"
)

// sdkTarget is what sdk-session.mjs connects to: a command over stdio, or
// a streamable HTTP endpoint with headers.
type sdkTarget struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// transcript is one session's steps, in order: each step's name and what
// the server sent during it.
type transcript struct {
	names []string
	steps map[string]object
}

// runSDK runs sdk-session.mjs against target and returns its transcript.
func runSDK(t *testing.T, ctx context.Context, target sdkTarget) transcript {
	t.Helper()
	spec, err := json.Marshal(target)
	if err != nil {
		t.Fatal(err)
	}
	out := runClient(ctx, t.TempDir(), clientEnv(), nodeBin, sdkSession, string(spec))
	if out.err != nil {
		t.Fatalf("sdk-session.mjs against %s: %v\nstderr:\n%s", spec, out.err, out.stderr)
	}
	v, err := decodeOrdered([]byte(out.stdout))
	if err != nil {
		t.Fatalf("sdk-session.mjs against %s printed no transcript (%v):\n%s\nstderr:\n%s", spec, err, out.stdout, out.stderr)
	}
	var tr transcript
	tr.steps = map[string]object{}
	for _, e := range v.([]any) {
		entry := e.(object)
		name, _ := entry.get("step")
		tr.names = append(tr.names, name.(string))
		tr.steps[name.(string)] = entry.without("step")
	}
	return tr
}

// sdkCapabilities tells serve what sdk-session.mjs's client offers
// (sampling, and elicitation in form and URL mode): server-everything
// starts with serve, before any client has connected, and is told the
// configured default (docs/gateway.md), none unless said. This is the setup
// docs/clients.md gives a client that has these capabilities.
var sdkCapabilities = [2]string{"--assume-client-capabilities", "sampling,elicitation,elicitation-url"}

// The TypeScript SDK's Client sees through `mcpvisor serve --names bare`
// what it sees against server-everything directly: the same initialize
// (but for the gateway's identity), lists, tool results (text, structured
// content, images, resource links and references, a validation error),
// prompts (and a prompt's error), a completion, resources (and a read of
// one that does not exist), a subscription's update, progress
// notifications, and the sampling and elicitation (form and URL) requests
// the server sends during a call, relayed to the client and its answers
// back; on stdio (the SDK launches serve) and on streamable HTTP (with the
// gateway's bearer token). Every step is compared field by field after
// the expected differences in differences_test.go, each with its reason.
func TestSDK_ServeMatchesDirect(t *testing.T) {
	t.Parallel()
	ctx := testctx.WithTimeout(t, matrixTimeout)
	direct := runSDK(t, ctx, sdkTarget{Command: nodeBin, Args: []string{everythingJS, "stdio"}})
	checkBaseline(t, direct)

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		ctx := testctx.WithTimeout(t, matrixTimeout)
		gateway := runSDK(t, ctx, sdkTarget{Command: bin, Args: []string{
			"serve", "--names", "bare", sdkCapabilities[0], sdkCapabilities[1], "--cache-dir", cacheDir(t), "--config", writeServers(t),
		}})
		compareTranscripts(t, direct, gateway)
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		ctx := testctx.WithTimeout(t, matrixTimeout)
		tokenFile, token := writeToken(t)
		endpoint := startServeHTTP(t, ctx, "--names", "bare", sdkCapabilities[0], sdkCapabilities[1], "--token-file", tokenFile,
			"--cache-dir", cacheDir(t), "--config", writeServers(t))
		gateway := runSDK(t, ctx, sdkTarget{URL: endpoint, Headers: map[string]string{"Authorization": "Bearer " + token}})
		compareTranscripts(t, direct, gateway)
	})
}

// compareTranscripts reports every step whose normalized content differs,
// one error per step, named.
func compareTranscripts(t *testing.T, direct, gateway transcript) {
	t.Helper()
	if diff := cmp.Diff(direct.names, gateway.names); diff != "" {
		t.Errorf("steps differ (-direct +gateway):\n%s", diff)
	}
	for _, name := range direct.names {
		g, ok := gateway.steps[name]
		if !ok {
			continue
		}
		want := normalizeStep(name, direct.steps[name], false)
		got := normalizeStep(name, g, true)
		if diff := cmp.Diff(indent(want), indent(got)); diff != "" {
			t.Errorf("step %q: through serve differs from direct (-direct +gateway):\n%s", name, diff)
		}
	}
}

// The direct session's steps that answer with a JSON-RPC error, by design.
var errorSteps = map[string]bool{"get args-prompt, argument missing": true, "read an unknown resource": true}

// The direct session's steps that must carry what they exist to show.
var stepMustHave = map[string]string{
	"updates on":         "notifications",
	"progress":           "notifications",
	"sampling":           "serverRequests",
	"elicitation (form)": "serverRequests",
	"elicitation (url)":  "serverRequests",
}

// checkBaseline fails the test unless the direct session went as
// scripted: a step that failed or saw nothing directly would compare equal
// to one that fails the same way through the gateway, and prove nothing.
func checkBaseline(t *testing.T, direct transcript) {
	t.Helper()
	for _, name := range direct.names {
		step := direct.steps[name]
		if e, failed := step.get("sdkError"); failed && !errorSteps[name] {
			t.Fatalf("direct session: step %q failed: %v", name, e)
		}
		if field, ok := stepMustHave[name]; ok {
			if _, has := step.get(field); !has {
				t.Fatalf("direct session: step %q has no %s:\n%s", name, field, indent(step))
			}
		}
	}
	if len(direct.names) == 0 {
		t.Fatal("direct session: no steps")
	}
}
