package config_test

import (
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
)

// TestIdleTimeout: an upstream entry without idle_timeout gets
// docs/configuration.md's 120s (a stalled stream must not wait out the 10m
// round timeout), and a set value is read as written.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		want time.Duration
	}{
		{up, 120 * time.Second},
		{up + "    idle_timeout: 90s\n", 90 * time.Second},
		{up + "    idle_timeout: 1500ms\n", 1500 * time.Millisecond},
	} {
		c, err := config.Parse("t.yaml", []byte(tc.src), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if got := c.Upstreams[0].IdleTimeout; got != tc.want {
			t.Errorf("%q: idle_timeout %s, want %s", tc.src, got, tc.want)
		}
	}
}
