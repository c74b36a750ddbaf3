package aside_test

import (
	"errors"
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

// BenchmarkDo is what running aside costs: a goroutine's start and two
// switches.
func BenchmarkDo(b *testing.B) {
	n := 0
	for b.Loop() {
		aside.Do(func() { n++ })
	}
}
