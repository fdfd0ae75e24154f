package intake

import (
	"slices"
)

// loginResyncID is the id of the resync a login asks for through the
// token store's marker (nobody awaits its answers).
const loginResyncID = "oauth-login"

// withoutLoginMarker removes the marker from paths and says whether it
// was there.
func withoutLoginMarker(marker string, paths []string) ([]string, bool) {
	i := slices.Index(paths, marker)
	if marker == "" || i < 0 {
		return paths, false
	}
	return slices.Delete(slices.Clone(paths), i, i+1), true
}
