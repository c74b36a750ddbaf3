package h1

import (
	"testing"

	"go.uber.org/goleak"
)

// A body closed before its end is finished in a goroutine, and the idle
// sweep and a context's end run from timers: none may outlive the
// transport that started it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
