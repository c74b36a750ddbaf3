package badger

import (
	"testing"
	"time"
)

// TestKeyExpiry: badger's expiry is a whole second from whose start the
// entry is gone, so a key's is its ExpiresAt rounded up, never down.
func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	at := func(sec, nsec int64) *time.Time {
		t := time.Unix(sec, nsec)
		return &t
	}
	for _, tc := range []struct {
		name string
		at   *time.Time
		want uint64
	}{
		{"never", nil, 0},
		{"on the second", at(1_800_000_000, 0), 1_800_000_000},
		{"a nanosecond in", at(1_800_000_000, 1), 1_800_000_001},
		{"late in the second", at(1_800_000_000, 999_999_999), 1_800_000_001},
		{"before 1970", at(-5, 500), 1}, // long past, never wrapped round
		{"zero time", &time.Time{}, 1},
	} {
		if got := keyExpiry(tc.at); got != tc.want {
			t.Errorf("%s: keyExpiry = %d, want %d", tc.name, got, tc.want)
		}
	}
}
