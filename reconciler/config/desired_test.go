package config_test

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/reconciler/config"
)

// A save that only moves text around asks for the same desired state; any
// change of an expanded value, a setting or validity does not.
func TestSameDesired(t *testing.T) {
	t.Parallel()
	const base = `{"mcpServers": {
  "a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]},
  "b": {"url": "https://h/mcp"},
  "bad": {"command": "x", "args": [1]}
}}`
	load := func(src string, env map[string]string) config.Loaded {
		opts := testOpts()
		if env != nil {
			opts.LookupEnv = envOf(env)
		}
		cfg, _ := config.Load([]config.FileContent{{Path: testPath, Data: []byte(src)}}, opts, nil)
		return cfg
	}
	want := load(base, nil)
	if len(want.Servers) != 2 || len(want.Invalid) != 1 {
		t.Fatalf("base config: %+v", want)
	}
	same := map[string]string{
		"reformatted, commented, keys and entries reordered": `// servers
{
  "mcpServers": {
    "bad": {"args": [1], "command": "x"},  // still broken


    "b": {"url": "https://h/mcp",},
    "a": {
      "allowTools": ["t"], "callTimeout": "5s",
      "env": {"L": "w", "K": "v"},
      "args": ["--t", "${TOKEN}"], "command": "x",
    },
  },
}`,
	}
	for name, src := range same {
		if got := load(src, nil); !config.SameDesired(want, got) {
			t.Errorf("%s: not the same desired state:\n%+v\n%+v", name, want, got)
		}
	}
	differ := map[string]string{
		"arg":            `{"mcpServers": {"a": {"command": "x", "args": ["--u", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]}, "b": {"url": "https://h/mcp"}, "bad": {"command": "x", "args": [1]}}}`,
		"call timeout":   `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "6s", "allowTools": ["t"]}, "b": {"url": "https://h/mcp"}, "bad": {"command": "x", "args": [1]}}}`,
		"tool filter":    `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s"}, "b": {"url": "https://h/mcp"}, "bad": {"command": "x", "args": [1]}}}`,
		"disabled":       `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]}, "b": {"url": "https://h/mcp", "disabled": true}, "bad": {"command": "x", "args": [1]}}}`,
		"now invalid":    `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]}, "b": {"url": "ftp://h/mcp"}, "bad": {"command": "x", "args": [1]}}}`,
		"now valid":      `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]}, "b": {"url": "https://h/mcp"}, "bad": {"command": "x", "args": ["1"]}}}`,
		"another reason": `{"mcpServers": {"a": {"command": "x", "args": ["--t", "${TOKEN}"], "env": {"K": "v", "L": "w"}, "callTimeout": "5s", "allowTools": ["t"]}, "b": {"url": "https://h/mcp"}, "bad": {"command": "x", "args": [true]}}}`,
	}
	for name, src := range differ {
		if got := load(src, nil); config.SameDesired(want, got) {
			t.Errorf("%s: reported as the same desired state", name)
		}
	}
	rotated := map[string]string{"TOKEN": "tok-5678"}
	if got := load(base, rotated); config.SameDesired(want, got) {
		t.Error("a rotated variable behind ${TOKEN}: reported as the same desired state")
	}
}
