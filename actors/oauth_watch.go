package actors

import (
	"slices"

	"github.com/mcpvisor/mcpvisor/actors/oauth"
)

// loginResyncID is the id of the resync a login asks for through the
// token store's marker (nobody awaits its answers).
const loginResyncID = "oauth-login"

// oauthOn says whether sessions use the token store.
func oauthOn(o Options) bool { return o.OAuthDir != "" && o.OAuthDir != "-" }

// loginWatched adds the token store's login marker to the watched paths:
// `mcpvisor auth login` touches it after storing a token, so that a
// daemon or `serve` it cannot reach over the API (or that has none)
// connects the server at once, by a resync.
func loginWatched(o Options, paths []string) []string {
	if !oauthOn(o) {
		return paths
	}
	return append(paths[:len(paths):len(paths)], oauth.Store{Dir: o.OAuthDir}.LoginMarker())
}

// withoutLoginMarker removes the marker from paths and says whether it
// was there.
func withoutLoginMarker(o Options, paths []string) ([]string, bool) {
	if !oauthOn(o) {
		return paths, false
	}
	marker := oauth.Store{Dir: o.OAuthDir}.LoginMarker()
	i := slices.Index(paths, marker)
	if i < 0 {
		return paths, false
	}
	return slices.Delete(slices.Clone(paths), i, i+1), true
}
