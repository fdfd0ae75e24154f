package cli_test

import (
	"regexp"
	"testing"

	"github.com/mcpvisor/mcpvisor/actors/actorstest"
)

// flagHeader is a flag's line in -h output: "  -name" and, for a flag
// that takes a value, the word the flag package names its type with.
var flagHeader = regexp.MustCompile(`^  -[a-z][a-z0-9-]*( (value|string|int|uint|float|duration))?$`)

// Backquotes in a flag's usage name its value in -h output: "`mcpvisor
// trust`" in the --config usage printed "-config mcpvisor trust", and
// "`run`" printed "-config run", as if that were how to pass the flag.
// Every command's flag lines name a value by its type only.
func TestUsage_FlagLinesNameTheirValueByItsType(t *testing.T) {
	t.Parallel()
	ctx := actorstest.Context(t)
	flagLine := regexp.MustCompile(`(?m)^  -.*$`)
	for _, cmd := range [][]string{{"run"}, {"serve"}, {"check"}, {"trust"}, {"input"}, {"auth", "login"}, {"status"}, {"call"}, {"events"}} {
		r := mcpvisor(ctx, nil, "", append(cmd, "-h")...)
		lines := flagLine.FindAllString(r.stderr, -1)
		if len(lines) == 0 {
			t.Errorf("%v -h printed no flag lines:\n%s", cmd, r.stderr)
		}
		for _, l := range lines {
			if !flagHeader.MatchString(l) {
				t.Errorf("%v -h: flag line %q names its value otherwise than by its type (a backquote in its usage?)", cmd, l)
			}
		}
	}
}
