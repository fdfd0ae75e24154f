package messages_test

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
)

func TestStatus_CatalogsKnown(t *testing.T) {
	t.Parallel()
	row := func(s messages.State, cached bool) messages.ServerStatus {
		return messages.ServerStatus{Name: string(s), State: s, Cached: cached}
	}
	at := func(rows ...messages.ServerStatus) messages.Status {
		return messages.Status{Generation: 1, ObservedGeneration: 1, Servers: rows}
	}
	tests := []struct {
		name string
		st   messages.Status
		want bool
	}{
		{"nothing read yet", messages.Status{}, false},
		{"plan not applied", messages.Status{Generation: 2, ObservedGeneration: 1, Servers: []messages.ServerStatus{row(messages.StateStarting, true)}}, false},
		{"every connecting server cached", at(row(messages.StateStarting, true), row(messages.StatePending, true), row(messages.StateReady, false)), true},
		{"one starting uncached", at(row(messages.StateStarting, true), row(messages.StateStarting, false)), false},
		{"one pending uncached", at(row(messages.StatePending, false)), false},
		{"settled", at(row(messages.StateReady, false), row(messages.StateFailed, false), row(messages.StateDisabled, false)), true},
		{"stopping", at(row(messages.StateStopping, false)), false},
	}
	for _, tt := range tests {
		if got := tt.st.CatalogsKnown(); got != tt.want {
			t.Errorf("%s: CatalogsKnown() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
