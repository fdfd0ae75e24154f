package intake

import (
	"slices"
)

// loginResyncID is the id of the resync a login asks for through the
// token store's marker (nobody awaits its answers).
const loginResyncID = "oauth-login"

// loginWatched adds the token store's login marker to the watched paths:
// `mcpvisor auth login` touches it after storing a token, so that a
// daemon or `serve` it cannot reach over the API (or that has none)
// connects the server at once, by a resync.
func loginWatched(marker string, paths []string) []string {
	if marker == "" {
		return paths
	}
	return append(paths[:len(paths):len(paths)], marker)
}

// withoutLoginMarker removes the marker from paths and says whether it
// was there.
func withoutLoginMarker(marker string, paths []string) ([]string, bool) {
	i := slices.Index(paths, marker)
	if marker == "" || i < 0 {
		return paths, false
	}
	return slices.Delete(slices.Clone(paths), i, i+1), true
}
