package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size is a byte count written in YAML as "64KiB", "1MiB" or a plain
// integer of bytes. See [ParseSize] for every accepted form.
type Size int64

// Byte multiples accepted by [Size].
const (
	KiB Size = 1 << 10
	MiB Size = 1 << 20
	GiB Size = 1 << 30
	TiB Size = 1 << 40
)

// Int returns the size as an int, for APIs that take one.
func (s Size) Int() int { return int(s) }

// String writes the size with the largest IEC unit that divides it
// exactly ("64KiB", "1MiB", "1000B"), so messages show what a user would
// write and [ParseSize] reads it back unchanged.
func (s Size) String() string {
	for _, u := range []struct {
		n    Size
		unit string
	}{{TiB, "TiB"}, {GiB, "GiB"}, {MiB, "MiB"}, {KiB, "KiB"}} {
		if s != 0 && s%u.n == 0 {
			return strconv.FormatInt(int64(s/u.n), 10) + u.unit
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// sizeUnits maps lower-cased unit suffixes to their multiples. IEC units
// (KiB) are powers of 1024, SI units (KB) powers of 1000, as in
// go-humanize and the units' own standards; single letters (K, M) are
// refused because tools disagree on what they mean.
var sizeUnits = map[string]Size{
	"":    1,
	"b":   1,
	"kib": KiB, "mib": MiB, "gib": GiB, "tib": TiB,
	"kb": 1000, "mb": 1000 * 1000, "gb": 1000 * 1000 * 1000, "tb": 1000 * 1000 * 1000 * 1000,
}

var errSizeRange = errors.New("too large")

// ParseSize reads a byte count: a non-negative integer followed by an
// optional unit, with optional space between them. Units are
// case-insensitive: B; KiB, MiB, GiB, TiB (1024-multiples); KB, MB, GB, TB
// (1000-multiples). Fractions, negative numbers and single-letter units
// ("64K") are errors whose message says what to write instead.
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, written := t[:i], strings.TrimSpace(t[i:])
	unit := strings.ToLower(written)
	switch {
	case strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("size %q is negative (want a byte count like 64KiB)", s)
	case num == "":
		return 0, fmt.Errorf("size %q is not a number with a unit (want e.g. 512B, 64KiB, 1MiB)", s)
	case strings.HasPrefix(unit, "."):
		return 0, fmt.Errorf("size %q has a fraction (write a whole number in a smaller unit, e.g. 1536KiB)", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q has unknown unit %q (want B, KiB, MiB, GiB, TiB, or KB, MB, GB, TB for powers of 1000)", s, written)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/int64(mult) {
		return 0, fmt.Errorf("size %q is %w", s, errSizeRange)
	}
	return Size(n) * mult, nil
}
