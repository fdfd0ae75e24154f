package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
)

// entry is one server in an MCP config file, in the format both mcpvisor
// and mcp-hub read ({"mcpServers": {NAME: entry}}).
type entry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

type fleet map[string]entry

// with returns a copy of f with more entries.
func (f fleet) with(more fleet) fleet {
	out := maps.Clone(f)
	maps.Copy(out, more)
	return out
}

// without returns a copy of f without the named entries.
func (f fleet) without(names ...string) fleet {
	out := maps.Clone(f)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func (f fleet) names() []string { return slices.Sorted(maps.Keys(f)) }

// write rewrites path in place (truncate and write, same inode), as most
// editors without atomic save and the peer kit's mcp-hub benchmark do.
func (f fleet) write(path string) error {
	b, err := json.MarshalIndent(map[string]fleet{"mcpServers": f}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// exampleFleet is n example servers named prefix000, prefix001, ...
func exampleFleet(bin, prefix string, n int) fleet {
	f := fleet{}
	for i := range n {
		f[fmt.Sprintf("%s%03d", prefix, i)] = entry{Command: bin, Args: []string{"example-server"}}
	}
	return f
}
