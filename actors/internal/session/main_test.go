package session

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if runFloodServer() { // the test binary re-executed as a stdio server
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
