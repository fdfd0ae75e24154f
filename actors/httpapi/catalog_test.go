package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvisor/mcpvisor/actors"
	"github.com/mcpvisor/mcpvisor/actors/httpapi"
	"github.com/mcpvisor/mcpvisor/actors/httpapi/httpapitest"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/test/testkit"
)

func sampleCatalog() ([]messages.Prompt, []messages.Resource, []messages.ResourceTemplate) {
	return []messages.Prompt{
			{Server: "alpha", Prefix: "alpha", Name: "greet", Description: "Greets someone.", Arguments: []messages.PromptArgument{{Name: "name", Required: true}}, Hash: "h1"},
			{Server: "alpha", Prefix: "alpha", Name: "status", Hash: "h2"},
		}, []messages.Resource{
			{Server: "alpha", URI: "example://static/readme", Name: "readme", MIMEType: "text/plain", Hash: "h3"},
		}, []messages.ResourceTemplate{
			{Server: "alpha", URITemplate: "example://items/{id}", Name: "item", MIMEType: "application/json", Hash: "h4"},
		}
}

// Prompts are listed under their fleet-wide prefix__prompt names;
// resources and templates as the fleet has them. Golden files pin the
// wire form docs/api.md shows.
func TestCatalog_ListsPromptsResourcesTemplates(t *testing.T) {
	t.Parallel()
	fleet := &httpapitest.Fleet{}
	fleet.SetCatalog(sampleCatalog())
	ts, _ := api(t, httpapi.Options{Fleet: fleet})

	for path, file := range map[string]string{
		"/api/v1/prompts":             "prompts.json",
		"/api/v1/resources":           "resources.json",
		"/api/v1/resources/templates": "templates.json",
	} {
		res := request(t, ts, http.MethodGet, path, "")
		if res.code != http.StatusOK {
			t.Fatalf("%s = %d %s", path, res.code, res.body)
		}
		golden(t, file, indent(t, res.body))
	}
	var got httpapi.PromptList
	request(t, ts, http.MethodGet, "/api/v1/prompts", "").json(t, &got)
	if got.Prompts[0].Name != "alpha__greet" || got.Prompts[1].Arguments == nil {
		t.Fatalf("prompts = %+v, want qualified names and arguments never null", got)
	}

	empty := &httpapitest.Fleet{}
	ts, _ = api(t, httpapi.Options{Fleet: empty})
	for path, want := range map[string]string{
		"/api/v1/prompts":             `{"prompts":[]}`,
		"/api/v1/resources":           `{"resources":[]}`,
		"/api/v1/resources/templates": `{"resourceTemplates":[]}`,
	} {
		if res := request(t, ts, http.MethodGet, path, ""); strings.TrimSpace(string(res.body)) != want {
			t.Errorf("%s on an empty fleet = %s, want %s", path, res.body, want)
		}
	}
}

// prompts/get and resources/read reach the fleet with what was sent and
// answer the MCP result; their errors map like a tool call's.
func TestCatalog_GetAndReadWithErrorMapping(t *testing.T) {
	t.Parallel()
	var fail error
	fleet := &httpapitest.Fleet{
		GetPromptFunc: func(_ context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
			if fail != nil {
				return nil, fail
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: name + " " + args["name"]}}}}, nil
		},
		ReadFunc: func(_ context.Context, uri string) (*mcp.ReadResourceResult, error) {
			if fail != nil {
				return nil, fail
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "read " + uri}}}, nil
		},
	}
	ts, _ := api(t, httpapi.Options{Fleet: fleet})
	res := request(t, ts, http.MethodPost, "/api/v1/prompts/get", `{"name": "alpha__greet", "arguments": {"name": "Ada"}}`)
	if want := `{"messages":[{"content":{"type":"text","text":"alpha__greet Ada"},"role":"user"}]}`; res.code != http.StatusOK || strings.TrimSpace(string(res.body)) != want {
		t.Fatalf("get = %d %s, want %s", res.code, res.body, want)
	}
	res = request(t, ts, http.MethodPost, "/api/v1/resources/read", `{"uri": "example://static/readme"}`)
	if want := `{"contents":[{"uri":"example://static/readme","mimeType":"text/plain","text":"read example://static/readme"}]}`; res.code != http.StatusOK || strings.TrimSpace(string(res.body)) != want {
		t.Fatalf("read = %d %s, want %s", res.code, res.body, want)
	}
	for body, path := range map[string]string{`{}`: "/api/v1/prompts/get", `{"uri": ""}`: "/api/v1/resources/read", `{"url": "x"}`: "/api/v1/resources/read"} {
		if res := request(t, ts, http.MethodPost, path, body); res.code != http.StatusBadRequest {
			t.Errorf("%s %s = %d, want 400", path, body, res.code)
		}
	}
	if res := request(t, ts, http.MethodGet, "/api/v1/resources/read", ""); res.code != http.StatusMethodNotAllowed {
		t.Errorf("GET read = %d, want 405", res.code)
	}

	for _, tc := range []struct {
		err  error
		want int
	}{
		{actors.ErrUnknownPrompt, http.StatusNotFound},
		{actors.ErrUnknownResource, http.StatusNotFound},
		{actors.ErrUnknownServer, http.StatusNotFound},
		{actors.ErrBadToolName, http.StatusBadRequest},
		{actors.ErrNotReady, http.StatusServiceUnavailable},
		{actors.ErrUpstream, http.StatusBadGateway},
		{actors.ErrCallTimeout, http.StatusGatewayTimeout},
	} {
		fail = fmt.Errorf("%w: detail", tc.err)
		for path, body := range map[string]string{"/api/v1/prompts/get": `{"name": "a__b"}`, "/api/v1/resources/read": `{"uri": "x://y"}`} {
			res := request(t, ts, http.MethodPost, path, body)
			if res.code != tc.want || !strings.Contains(res.errorText(t), "detail") {
				t.Errorf("%s with %v = %d %s, want %d", path, tc.err, res.code, res.body, tc.want)
			}
		}
	}
}

// The catalog over a real Supervisor and a real example server.
func TestSupervisor_CatalogServedThroughTheAPI(t *testing.T) {
	t.Parallel()
	ts, _ := supervised(t, map[string]testkit.Server{
		"alpha": testkit.Example(bin, "--name", "alpha", "--everything"),
	}, actors.Options{})
	waitState(t, ts, "alpha", messages.StateReady)

	var st messages.Status
	request(t, ts, http.MethodGet, "/api/v1/status", "").json(t, &st)
	if s := st.Servers[0]; s.Prompts != 2 || s.Resources != 3 || s.Templates != 1 {
		t.Fatalf("counts = %d prompts, %d resources, %d templates; want 2, 3, 1", s.Prompts, s.Resources, s.Templates)
	}
	var prompts httpapi.PromptList
	request(t, ts, http.MethodGet, "/api/v1/prompts", "").json(t, &prompts)
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"alpha__greet", "alpha__status"}, names); diff != "" {
		t.Fatalf("prompts (-want +got):\n%s", diff)
	}
	res := request(t, ts, http.MethodPost, "/api/v1/prompts/get", `{"name": "alpha__greet", "arguments": {"name": "Ada", "language": "french"}}`)
	if res.code != http.StatusOK || !strings.Contains(string(res.body), "Say hello to Ada in french.") {
		t.Fatalf("get = %d %s", res.code, res.body)
	}
	var resources httpapi.ResourceList
	request(t, ts, http.MethodGet, "/api/v1/resources", "").json(t, &resources)
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "example://static/readme") {
		t.Fatalf("resources = %v", uris)
	}
	var templates httpapi.TemplateList
	request(t, ts, http.MethodGet, "/api/v1/resources/templates", "").json(t, &templates)
	if len(templates.Templates) != 1 || templates.Templates[0].URITemplate != "example://items/{id}" {
		t.Fatalf("templates = %+v", templates)
	}
	res = request(t, ts, http.MethodPost, "/api/v1/resources/read", `{"uri": "example://items/42"}`)
	if res.code != http.StatusOK || !strings.Contains(string(res.body), `\"id\":\"42\"`) {
		t.Fatalf("read through the template = %d %s", res.code, res.body)
	}
	for body, want := range map[string]int{
		`{"name": "alpha__nope"}`:  http.StatusNotFound,
		`{"name": "alpha__greet"}`: http.StatusBadGateway, // name is required: the server says so
	} {
		if res := request(t, ts, http.MethodPost, "/api/v1/prompts/get", body); res.code != want {
			t.Errorf("get %s = %d %s, want %d", body, res.code, res.body, want)
		}
	}
	if res := request(t, ts, http.MethodPost, "/api/v1/resources/read", `{"uri": "nowhere://x"}`); res.code != http.StatusNotFound {
		t.Errorf("read of an unrouted URI = %d %s, want 404", res.code, res.body)
	}
}
