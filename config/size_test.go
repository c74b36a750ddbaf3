package config_test

import (
	"testing"

	"github.com/toolstream/toolstream/config"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    config.Size
		wantErr string
	}{
		{in: "0", want: 0},
		{in: "512", want: 512},
		{in: "512B", want: 512},
		{in: "512b", want: 512},
		{in: "64KiB", want: 64 << 10},
		{in: "64kib", want: 64 << 10},
		{in: "64 KiB", want: 64 << 10},
		{in: " 1MiB ", want: 1 << 20},
		{in: "2GiB", want: 2 << 30},
		{in: "1TiB", want: 1 << 40},
		{in: "64KB", want: 64000},
		{in: "1MB", want: 1000000},
		{in: "2GB", want: 2000000000},
		{in: "1TB", want: 1000000000000},
		{in: "8388607TiB", want: 8388607 << 40},
		{in: "", wantErr: `size "" is not a number with a unit (want e.g. 512B, 64KiB, 1MiB)`},
		{in: "KiB", wantErr: `size "KiB" is not a number with a unit (want e.g. 512B, 64KiB, 1MiB)`},
		{in: "-1", wantErr: `size "-1" is negative (want a byte count like 64KiB)`},
		{in: "-64KiB", wantErr: `size "-64KiB" is negative (want a byte count like 64KiB)`},
		{in: "1.5MiB", wantErr: `size "1.5MiB" has a fraction (write a whole number in a smaller unit, e.g. 1536KiB)`},
		{in: "64K", wantErr: `size "64K" has unknown unit "K" (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB for powers of 1000)`},
		{in: "10 apples", wantErr: `size "10 apples" has unknown unit "apples" (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB for powers of 1000)`},
		{in: "0x10", wantErr: `size "0x10" has unknown unit "x10" (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB for powers of 1000)`},
		{in: "8388608TiB", wantErr: `size "8388608TiB" is too large`},
		{in: "99999999999999999999", wantErr: `size "99999999999999999999" is too large`},
	} {
		got, err := config.ParseSize(tc.in)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseSize(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestSizeString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   config.Size
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1000, "1000B"},
		{1536, "1536B"}, // 1.5KiB is not a whole number of KiB
		{64 * config.KiB, "64KiB"},
		{10 * config.MiB, "10MiB"},
		{3 * config.GiB, "3GiB"},
		{2 * config.TiB, "2TiB"},
		{config.MiB + 1, "1048577B"},
	} {
		got := tc.in.String()
		if got != tc.want {
			t.Errorf("Size(%d).String() = %q, want %q", int64(tc.in), got, tc.want)
		}
		if back, err := config.ParseSize(got); err != nil || back != tc.in {
			t.Errorf("ParseSize(%q) = %d, %v; want it to read back %d", got, back, err, int64(tc.in))
		}
	}
}
