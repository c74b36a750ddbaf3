package loop_test

import (
	"testing"

	"go.uber.org/goleak"
)

// A round waits for the upstream's answer in a goroutine, and starts one
// per call and the timers that wake the turn; every one must be gone when
// the turn ends.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
