package view_test

import (
	"errors"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/internal/view"
	"github.com/mcpvisor/mcpvisor/messages"
	"github.com/mcpvisor/mcpvisor/reconciler"
)

// session stands for what a row routes requests to.
type session struct{ name string }

type rows map[string]*view.Row[*session]

// fleetRow is a fleet row of a named server: ready (routable) unless
// not, in config order by line, with tools, prompts, resources and
// templates by key.
func fleetRow(name, prefix string, line int, ready bool, tools []string, cat ...[]string) reconciler.Row {
	fr := reconciler.Row{
		Status: messages.ServerStatus{Name: name, Prefix: prefix, State: messages.StateStarting},
		Named:  true, Ready: ready, Listed: ready,
		Order: reconciler.ConfigOrder{Line: line, Name: name},
	}
	if ready {
		fr.Status.State = messages.StateReady
	}
	for _, t := range tools {
		fr.Tools = append(fr.Tools, messages.Tool{Server: name, Prefix: prefix, Name: t})
	}
	if len(cat) > 0 {
		for _, p := range cat[0] {
			fr.Prompts = append(fr.Prompts, messages.Prompt{Server: name, Prefix: prefix, Name: p})
		}
	}
	if len(cat) > 1 {
		for _, u := range cat[1] {
			fr.Resources = append(fr.Resources, messages.Resource{Server: name, URI: u})
		}
	}
	if len(cat) > 2 {
		for _, t := range cat[2] {
			fr.Templates = append(fr.Templates, messages.ResourceTemplate{Server: name, URITemplate: t})
		}
	}
	return fr
}

// next applies rows (nil: gone) to s.
func next(s *view.Snapshot[*session], changed rows) *view.Snapshot[*session] {
	names := make([]string, 0, len(changed))
	for name := range changed {
		names = append(names, name)
	}
	return s.Next(names, func(name string) *view.Row[*session] { return changed[name] }, view.Meta{})
}

func row(fr reconciler.Row) *view.Row[*session] {
	return view.NewRow(fr, &session{fr.Status.Name}, nil, view.Defaults{})
}

func routedTo(t *testing.T, s *view.Snapshot[*session], name, wantServer, wantItem string) {
	t.Helper()
	r, item, err := s.RouteTool(name)
	if err != nil || r.Status.Name != wantServer || item != wantItem {
		t.Fatalf("RouteTool(%q) = %v, %q, %v; want %s, %q", name, r, item, err, wantServer, wantItem)
	}
}

// A prefixed name goes to the server with that prefix; a bare name to the
// first server in config order (not by name) with the empty prefix that
// exposes it.
func TestSnapshot_RoutesByPrefixThenBareInConfigOrder(t *testing.T) {
	t.Parallel()
	s := next(&view.Snapshot[*session]{}, rows{
		"alpha": row(fleetRow("alpha", "al", 1, true, []string{"echo"})),
		"zeta":  row(fleetRow("zeta", "", 2, true, []string{"echo", "only-zeta"})),
		"beta":  row(fleetRow("beta", "", 3, true, []string{"echo"})),
	})
	routedTo(t, s, "al__echo", "alpha", "echo")
	routedTo(t, s, "echo", "zeta", "echo")
	routedTo(t, s, "only-zeta", "zeta", "only-zeta")
	// Zeta goes: beta takes its bare names; the other rows are shared.
	alpha, _ := s.Row("alpha")
	s2 := next(s, rows{"zeta": nil})
	routedTo(t, s2, "echo", "beta", "echo")
	if a2, _ := s2.Row("alpha"); a2 != alpha {
		t.Error("an unchanged row was rebuilt")
	}
	if _, _, err := s2.RouteTool("only-zeta"); !errors.Is(err, view.ErrUnknownTool) {
		t.Errorf("a gone server's tool: %v, want ErrUnknownTool", err)
	}
}

// Two servers may swap prefixes in one change.
func TestSnapshot_PrefixesSwapInOneChange(t *testing.T) {
	t.Parallel()
	s := next(&view.Snapshot[*session]{}, rows{
		"a": row(fleetRow("a", "x", 1, true, []string{"t"})),
		"b": row(fleetRow("b", "y", 2, true, []string{"t"})),
	})
	s = next(s, rows{
		"a": row(fleetRow("a", "y", 1, true, []string{"t"})),
		"b": row(fleetRow("b", "x", 2, true, []string{"t"})),
	})
	routedTo(t, s, "x__t", "b", "t")
	routedTo(t, s, "y__t", "a", "t")
}

// A name that reaches a server not up yet (by prefix, or a bare name it
// lists from its cached catalog) routes to its row, which says it is not
// routable: the request is then not ready, not unknown.
func TestSnapshot_NotReadyIsARowNotAnError(t *testing.T) {
	t.Parallel()
	starting := fleetRow("s", "s", 1, false, nil)
	cached := fleetRow("c", "", 2, false, []string{"from-cache"})
	cached.Cached = true
	s := next(&view.Snapshot[*session]{}, rows{"s": row(starting), "c": row(cached)})
	for _, name := range []string{"s__anything", "from-cache"} {
		r, _, err := s.RouteTool(name)
		if err != nil || r.Routable {
			t.Errorf("RouteTool(%q) = %+v, %v; want a row that is not routable", name, r, err)
		}
	}
}

// A name a server not up yet lacks from its cached catalog is unknown at
// once, by its prefix too: only a server whose catalog nobody knows makes
// a request wait for it to tell.
func TestSnapshot_ANameACachedCatalogLacksIsUnknown(t *testing.T) {
	t.Parallel()
	cached := fleetRow("c", "c", 1, false, []string{"from-cache"})
	cached.Cached = true
	s := next(&view.Snapshot[*session]{}, rows{"c": row(cached)})
	if _, _, err := s.RouteTool("c__nope"); !errors.Is(err, view.ErrUnknownTool) {
		t.Errorf("RouteTool(c__nope) = %v, want ErrUnknownTool", err)
	}
}

// The errors say what is wrong with a name.
func TestSnapshot_RouteErrors(t *testing.T) {
	t.Parallel()
	prefixed := next(&view.Snapshot[*session]{}, rows{"a": row(fleetRow("a", "a", 1, true, []string{"t"}, []string{"p"}))})
	bare := next(prefixed, rows{"b": row(fleetRow("b", "", 2, true, []string{"t"}))})
	for _, tc := range []struct {
		s    *view.Snapshot[*session]
		name string
		want error
	}{
		{prefixed, "", view.ErrBadToolName},
		{prefixed, "a__nope", view.ErrUnknownTool},
		{prefixed, "zz__t", view.ErrUnknownServer},
		{prefixed, "no-prefix", view.ErrBadToolName},
		{bare, "zz__t", view.ErrUnknownTool},
		{bare, "nope", view.ErrUnknownTool},
	} {
		if _, _, err := tc.s.RouteTool(tc.name); !errors.Is(err, tc.want) {
			t.Errorf("RouteTool(%q) = %v, want %v", tc.name, err, tc.want)
		}
	}
	if r, item, err := prefixed.RoutePrompt("a__p"); err != nil || r.Status.Name != "a" || item != "p" {
		t.Errorf("RoutePrompt(a__p) = %v, %q, %v", r, item, err)
	}
	if _, _, err := prefixed.RoutePrompt("a__t"); !errors.Is(err, view.ErrUnknownPrompt) {
		t.Errorf("a tool's name as a prompt: %v, want ErrUnknownPrompt", err)
	}
}

// A URI goes to the first server in config order that lists it, else to
// the first whose template matches it; nothing routes to a server that is
// not routable.
func TestSnapshot_ResourcesRouteInConfigOrder(t *testing.T) {
	t.Parallel()
	s := next(&view.Snapshot[*session]{}, rows{
		"late":  row(fleetRow("late", "late", 2, true, nil, nil, []string{"file:///shared"}, []string{"item://{id}"})),
		"early": row(fleetRow("early", "early", 1, true, nil, nil, []string{"file:///shared"})),
		"down":  row(fleetRow("down", "down", 0, false, nil, nil, []string{"file:///down"})),
	})
	for uri, want := range map[string]string{"file:///shared": "early", "item://42": "late"} {
		if r, err := s.RouteResource(uri); err != nil || r.Status.Name != want {
			t.Errorf("RouteResource(%q) = %v, %v; want %s", uri, r, err, want)
		}
	}
	if _, err := s.RouteResource("file:///down"); !errors.Is(err, view.ErrUnknownResource) {
		t.Errorf("a resource of a server not up: %v, want ErrUnknownResource", err)
	}
	if r, ok := s.TemplateOwner("item://{id}"); !ok || r.Status.Name != "late" {
		t.Errorf("TemplateOwner = %v, %v", r, ok)
	}
}
