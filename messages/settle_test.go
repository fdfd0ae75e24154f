package messages_test

import (
	"testing"

	"github.com/mcpvisor/mcpvisor/messages"
)

func TestStatus_Settled(t *testing.T) {
	t.Parallel()
	rows := func(states ...messages.State) []messages.ServerStatus {
		var out []messages.ServerStatus
		for _, s := range states {
			out = append(out, messages.ServerStatus{Name: string(s), State: s})
		}
		return out
	}
	tests := []struct {
		name string
		st   messages.Status
		want bool
	}{
		{"nothing read yet", messages.Status{}, false},
		{"plan not applied", messages.Status{Generation: 2, ObservedGeneration: 1, Servers: rows(messages.StateReady)}, false},
		{"empty config", messages.Status{Generation: 1, ObservedGeneration: 1}, true},
		{"at rest", messages.Status{Generation: 1, ObservedGeneration: 1, Servers: rows(messages.StateReady, messages.StateFailed,
			messages.StateInvalid, messages.StateDisabled, messages.StateUntrusted, messages.StateStopped)}, true},
		{"starting", messages.Status{Generation: 1, ObservedGeneration: 1, Servers: rows(messages.StateReady, messages.StateStarting)}, false},
		{"pending", messages.Status{Generation: 1, ObservedGeneration: 1, Servers: rows(messages.StatePending)}, false},
		{"stopping", messages.Status{Generation: 1, ObservedGeneration: 1, Servers: rows(messages.StateStopping)}, false},
	}
	for _, tt := range tests {
		if got := tt.st.Settled(); got != tt.want {
			t.Errorf("%s: Settled() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
