package config_test

import (
	"strings"
	"testing"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// TestFitName: a name that fits is exposed as it is; one that does not
// gets its prefix shortened first (cut, "-", the prefix's hash), then its
// name, and always fits the budget. The 68-character Claude Code name of
// desktop-commander's give_feedback_to_desktop_commander behind the entry
// mcpvisor is the case from the field.
func TestFitName(t *testing.T) {
	t.Parallel()
	budget := config.NameBudget(config.DefaultMaxNameLength)
	if budget != 48 {
		t.Fatalf("NameBudget(64) = %d, want 48 (64 less the 16-character allowance)", budget)
	}
	longName := "a_tool_name_so_long_that_no_prefix_could_ever_make_it_fit"
	tests := []struct {
		name, prefix, item string
		want               string
		shortened          bool
	}{
		{name: "fits", prefix: "github", item: "create_issue", want: "github__create_issue"},
		{name: "exactly the budget", prefix: "p", item: strings.Repeat("x", 45), want: "p__" + strings.Repeat("x", 45)},
		{name: "prefix shortened first", prefix: "desktop-commander", item: "give_feedback_to_desktop_commander",
			want: "deskt-" + shortHash("desktop-commander") + "__give_feedback_to_desktop_commander", shortened: true},
		{name: "then the name", prefix: "desktop-commander", item: longName,
			want: "d-" + shortHash("desktop-commander") + "__" + longName[:31] + "-" + shortHash(longName), shortened: true},
		{name: "a short prefix is kept", prefix: "gh", item: longName,
			want: "gh__" + longName[:37] + "-" + shortHash(longName), shortened: true},
		{name: "bare", prefix: "", item: longName, want: longName[:40] + "-" + shortHash(longName), shortened: true},
		{name: "no trailing separator before the hash", prefix: "server_with_underscores_only", item: "abcdefghijklmnopqrstuvwxyz0",
			want: "server_with-" + shortHash("server_with_underscores_only") + "__abcdefghijklmnopqrstuvwxyz0", shortened: true},
		{name: "cut at a character boundary", prefix: "", item: strings.Repeat("é", 30),
			want: strings.Repeat("é", 20) + "-" + shortHash(strings.Repeat("é", 30)), shortened: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, shortened := config.FitName(tt.prefix, tt.item, budget)
			if got != tt.want || shortened != tt.shortened {
				t.Errorf("FitName(%q, %q, %d) = %q, %v; want %q, %v", tt.prefix, tt.item, budget, got, shortened, tt.want, tt.shortened)
			}
			if len(got) > budget {
				t.Errorf("%q is %d bytes, over the budget %d", got, len(got), budget)
			}
			if len(config.ClaudeCodeName(config.ClaudeCodeEntry, got)) > config.ClaudeCodeMaxName {
				t.Errorf("%q passes %d characters in Claude Code", got, config.ClaudeCodeMaxName)
			}
			if prefix, _, ok := config.SplitName(got); ok && tt.prefix != "" && !config.ExposesPrefix(tt.prefix, prefix) {
				t.Errorf("the prefix part %q of %q does not stand for %q", prefix, got, tt.prefix)
			}
		})
	}
}

// TestFitName_NoBound: budget 0 exposes every name whole.
func TestFitName_NoBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200)
	if got, shortened := config.FitName("p", long, 0); got != "p__"+long || shortened {
		t.Fatalf("FitName with no bound = %q, %v", got, shortened)
	}
}

// TestFitName_LongNamesNeverCollide: names that differ only in their last
// character, and prefixes that do, are cut alike but end with different
// hashes; the same input always gives the same name.
func TestFitName_LongNamesNeverCollide(t *testing.T) {
	t.Parallel()
	base := "give_feedback_to_desktop_commander_about_something_long"
	seen := map[string]string{}
	for _, prefix := range []string{"desktop-commander-one", "desktop-commander-two", ""} {
		for _, item := range []string{base + "_a", base + "_b", base + "_c"} {
			got, _ := config.FitName(prefix, item, 48)
			if again, _ := config.FitName(prefix, item, 48); again != got {
				t.Fatalf("FitName(%q, %q) gave %q, then %q", prefix, item, got, again)
			}
			key := prefix + "/" + item
			if other, ok := seen[got]; ok {
				t.Fatalf("%s and %s are both exposed as %q", other, key, got)
			}
			seen[got] = key
		}
	}
}

// TestExposesPrefix: a shortened prefix stands for the prefix it was cut
// from, and for no other.
func TestExposesPrefix(t *testing.T) {
	t.Parallel()
	exposed, _ := config.FitName("desktop-commander", "give_feedback_to_desktop_commander", 48)
	prefix, _, _ := config.SplitName(exposed)
	for _, tt := range []struct {
		prefix string
		want   bool
	}{
		{"desktop-commander", true},
		{"desktop-commander2", false},
		{"deskt", false},
	} {
		if got := config.ExposesPrefix(tt.prefix, prefix); got != tt.want {
			t.Errorf("ExposesPrefix(%q, %q) = %v, want %v", tt.prefix, prefix, got, tt.want)
		}
	}
	if !config.ExposesPrefix("github", "github") {
		t.Error("a prefix does not stand for itself")
	}
}
