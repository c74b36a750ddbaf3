package postgres

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// hashed is the SHA-256 of s, the key column of text that may be
// anything: PostgreSQL's text holds no NUL byte, and a digest keeps
// every id apart whatever it holds.
func hashed(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// unixNanos is at as the ordering column of a time-ordered table: Unix
// nanoseconds, times before 1970 as 1970 (the badger backend's order).
func unixNanos(at time.Time) int64 {
	return max(at.UnixNano(), 0)
}

// cursor is the opaque page cursor after the record (ns, id): 8
// big-endian bytes of ns and the id, base64url — the same shape as the
// badger backend's, so a cursor says nothing of the backend.
func cursor(ns int64, id string) string {
	raw := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(id)), uint64(ns))
	return base64.RawURLEncoding.EncodeToString(append(raw, id...))
}

// parseCursor turns a cursor back into its record's position;
// [store.ErrBadCursor] when it is not one [cursor] made.
func parseCursor(c string) (int64, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(raw) <= 8 || !store.ValidName(string(raw[8:])) {
		return 0, "", store.ErrBadCursor
	}
	ns := binary.BigEndian.Uint64(raw[:8])
	if ns > 1<<63-1 {
		return 0, "", store.ErrBadCursor
	}
	return int64(ns), string(raw[8:]), nil
}
