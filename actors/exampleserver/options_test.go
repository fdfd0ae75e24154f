package exampleserver_test

import (
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpvisor/mcpvisor/actors/exampleserver"
)

func TestParseFlags_FeatureFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want exampleserver.Options
	}{
		{nil, exampleserver.Options{Name: "example", ExitCode: 3}},
		{[]string{"--prompts", "--completion"}, exampleserver.Options{Name: "example", ExitCode: 3, Prompts: true, Completion: true}},
		{[]string{"--resources", "--update-every", "2s"}, exampleserver.Options{Name: "example", ExitCode: 3, Resources: true, UpdateEvery: 2 * time.Second}},
		{[]string{"--two-way", "--name", "x"}, exampleserver.Options{Name: "x", ExitCode: 3, TwoWay: true}},
		{[]string{"--tool", "a_long_tool_name", "--tool", "b"}, exampleserver.Options{Name: "example", ExitCode: 3, Tools: []string{"a_long_tool_name", "b"}}},
		{[]string{"--everything"}, exampleserver.Options{Name: "example", ExitCode: 3, Prompts: true, Resources: true, Completion: true, TwoWay: true}},
	} {
		got, err := exampleserver.ParseFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(exampleserver.Options{}, "Clock")); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.args, diff)
		}
	}
}

func TestParseFlags_UpdateEveryNeedsResources(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--update-every", "1s"}, {"--resources", "--update-every", "-1s"}} {
		if _, err := exampleserver.ParseFlags(args, io.Discard); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
}
