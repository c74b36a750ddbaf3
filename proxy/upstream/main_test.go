package upstream

import (
	"testing"

	"go.uber.org/goleak"
)

// The client dials, reads streams in goroutines and keeps idle
// connections in a pool; every goroutine must be gone when a test's
// client is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
