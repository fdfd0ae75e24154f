package exampleserver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Serve owns the --update-every ticker; every test ends its sessions, so
// nothing may outlive a test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
