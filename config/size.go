package config

// Size is a byte count written in YAML as "64KiB", "1MiB" or a plain
// integer of bytes.
type Size int64

// Byte multiples accepted by [Size].
const (
	KiB Size = 1 << 10
	MiB Size = 1 << 20
	GiB Size = 1 << 30
)

// Int returns the size as an int, for APIs that take one.
func (s Size) Int() int { return int(s) }
