package intake

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
)

// Recovered is a panic of a goroutine an actor owns, sent to that actor,
// which fails with it (so its supervisor sees the failure).
type Recovered struct {
	what  string
	value any
}

// recoverTo, deferred on a goroutine an actor owns, turns a panic into a
// Recovered message to that actor instead of a crash of the process.
func recoverTo(root *actor.RootContext, self *actor.PID, what string) {
	if v := recover(); v != nil {
		root.Send(self, &Recovered{what: what, value: v})
	}
}

// raise fails the actor with a goroutine's panic.
func (m *Recovered) raise() {
	panic(fmt.Sprintf("%s: %v", m.what, m.value))
}
