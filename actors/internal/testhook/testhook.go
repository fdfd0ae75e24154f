package testhook

import "github.com/mcpvisor/mcpvisor/actors/internal/fleet"

// Tree returns the actor tree of sup, an *actors.Supervisor.
var Tree func(sup any) *fleet.Tree
