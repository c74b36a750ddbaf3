package toolhost_test

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/toolhost"
)

func TestTextFallback(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := memStore(t, toolhost.StoreOptions{})

	if on, err := s.TextFallback(ctx, "local", "qwen3"); err != nil || on {
		t.Fatalf("TextFallback before Remember = %v, %v; want false", on, err)
	}
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		upstream, model string
		want            bool
	}{
		{"local", "qwen3", true},
		{"local", "qwen3:8b", false},  // per model
		{"local", "qwen", false},      // not a prefix match
		{"openai", "qwen3", false},    // per upstream
		{"", "local\x00qwen3", false}, // a NUL in the model stays in the model
	} {
		on, err := s.TextFallback(ctx, tc.upstream, tc.model)
		if err != nil || on != tc.want {
			t.Errorf("TextFallback(%q, %q) = %v, %v; want %v", tc.upstream, tc.model, on, err, tc.want)
		}
	}
	// A NUL in the upstream name would let "local\x00qwen3" + "" forge the
	// key of "local" + "qwen3".
	if on, err := s.TextFallback(ctx, "local\x00qwen3", ""); err == nil || on {
		t.Errorf("TextFallback with a NUL in the upstream = %v, %v; want an error", on, err)
	}
	if err := s.RememberTextFallback(ctx, "local\x00qwen3", ""); err == nil {
		t.Error("RememberTextFallback with a NUL in the upstream succeeded")
	}
}

func TestTextFallbackExpires(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	// Remembered eight days ago: a week later native tools get a new chance.
	past := func() time.Time { return time.Now().Add(-8 * 24 * time.Hour) }
	s := memStore(t, toolhost.StoreOptions{Now: past})
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	if on, err := s.TextFallback(ctx, "local", "qwen3"); err != nil || on {
		t.Errorf("TextFallback after 8 days = %v, %v; want false", on, err)
	}

	// Six days ago: still remembered.
	recent := func() time.Time { return time.Now().Add(-6 * 24 * time.Hour) }
	s = memStore(t, toolhost.StoreOptions{Now: recent})
	if err := s.RememberTextFallback(ctx, "local", "qwen3"); err != nil {
		t.Fatal(err)
	}
	if on, err := s.TextFallback(ctx, "local", "qwen3"); err != nil || !on {
		t.Errorf("TextFallback after 6 days = %v, %v; want true", on, err)
	}
}
