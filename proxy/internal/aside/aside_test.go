package aside_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/proxy/internal/aside"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDo(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name  string
		f     func(*int)
		panic any
	}{
		{"returns after f", func(n *int) { *n = 1 }, nil},
		{"panic is the caller's", func(n *int) { *n = 1; panic(boom) }, boom},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			got := func() (p any) {
				defer func() { p = recover() }()
				aside.Do(func() { c.f(&n) })
				return nil
			}()
			if n != 1 || got != c.panic {
				t.Fatalf("n=%d panic=%v, want n=1 panic=%v", n, got, c.panic)
			}
		})
	}
}

// TestDoConcurrent: calls at once each run once, on goroutines that end
// once idle (TestMain's leak check waits for them).
func TestDoConcurrent(t *testing.T) {
	var n atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 10 {
				aside.Do(func() { n.Add(1) })
			}
		})
	}
	wg.Wait()
	if got := n.Load(); got != 640 {
		t.Fatalf("ran %d calls, want 640", got)
	}
}

// BenchmarkDo is what running aside costs: two switches, a goroutine
// kept from the call before. Deep is work that needs 6 KiB of stack, as a
// storage's write does: a fresh goroutine's stack grew twice for it.
func BenchmarkDo(b *testing.B) {
	n := 0
	b.Run("shallow", func(b *testing.B) {
		for b.Loop() {
			aside.Do(func() { n++ })
		}
	})
	b.Run("deep", func(b *testing.B) {
		for b.Loop() {
			aside.Do(func() { n += int(deep(6)) })
		}
	})
}

// deep uses about 1 KiB of stack per level.
//
//go:noinline
func deep(level int) byte {
	var b [1000]byte
	b[level] = byte(level)
	if level == 0 {
		return b[0]
	}
	return deep(level-1) + b[level]
}
