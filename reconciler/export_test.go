package reconciler

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mcpvisor/mcpvisor/messages"
)

// CheckClaims holds the routing index to the live catalogs: every server
// claims exactly the resources and templates it exposes now (never the
// cached ones), and the index holds no other claim. The script and
// property tests check it after every step.
func CheckClaims(f *Fleet) error {
	want := map[messages.CatalogKind]map[string][]string{messages.KindResources: {}, messages.KindResourceTemplates: {}}
	for _, name := range slices.Sorted(maps.Keys(f.servers)) {
		s := f.servers[name]
		live := f.exposedCatalog(s)
		for _, r := range live.resources {
			want[messages.KindResources][r.URI] = append(want[messages.KindResources][r.URI], name)
		}
		for _, t := range live.templates {
			want[messages.KindResourceTemplates][t.URITemplate] = append(want[messages.KindResourceTemplates][t.URITemplate], name)
		}
	}
	for kind, keys := range want {
		have := map[string][]string{}
		if idx := f.claims[kind]; idx != nil {
			for k, s := range idx.single {
				have[k] = []string{s}
			}
			for k, m := range idx.multi {
				have[k] = slices.Sorted(slices.Values(m))
			}
		}
		if len(have) != len(keys) {
			return fmt.Errorf("%s index %v, but the live catalogs claim %v", kind, have, keys)
		}
		for k, servers := range keys {
			if !slices.Equal(have[k], servers) {
				return fmt.Errorf("%s %s claimed by %v in the index, by %v in the live catalogs", kind, k, have[k], servers)
			}
		}
	}
	return nil
}
