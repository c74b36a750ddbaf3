package badger

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Key layout. Every record type owns one prefix, so a prefix iteration never
// crosses into another type's keys. A key part is either an id or name that
// passed [store.ValidName] (no "/", so "attempt/a/" never matches attempt
// "a/b"), a fixed-length SHA-256 of text that may be anything (turn ids
// and lookup keys come from upstreams and clients, model names from
// requests), or a fixed-length big-endian time. So no text reaches into
// another key's space. Keys and values never hold client or upstream keys.
//
//	turn/<sha256 turn id>             → TurnRecord JSON   expires turn_retention after CreatedAt
//	turnkey/<sha256 lookup key>       → turn id           same expiry as its record
//	resp/<sha256 key id><sha256 id>   → ResponseRecord    expires turn_retention after CreatedAt
//	respitem/<sha256 key id><sha256 item id> → response id  same expiry as its record
//	mode/<upstream>/<sha256 model>    → modeRecord JSON   expires textFallbackTTL after writing
//	audit/<nanos><call record id>     → CallRecord JSON   expires audit_retention after StartedAt
//	call/<call record id>             → its audit/ key    same expiry
//	attempt/<attempt>/<call rec. id>  → Replay JSON       expires AttemptRef.TTL after its StartedAt
//	action/<nanos><action id>         → Action JSON       expires audit_retention after CreatedAt
//	actionid/<action id>              → its action/ key   same expiry
//	tool/<name>                       → RuntimeTool JSON  never expires
//	key/<name>                        → RuntimeKey JSON   expires at ExpiresAt, else never
//	usage/<key name>/<YYYY-MM-DD>     → Usage JSON        expires audit_retention after the day's end
//	open/call/<call record id>        → instance id       while the call is started
//	open/action/<action id>           → instance id       while the action is pending
//
// <nanos> is the 8-byte big-endian Unix time in nanoseconds, so a reverse
// prefix iteration lists newest first and a page cursor is just a key. The
// open/ index lets [DB.Recover] find what a dead process left behind
// without reading the whole audit log.
const (
	prefixTurn         = "turn/"
	prefixTurnKey      = "turnkey/"
	prefixResponse     = "resp/"
	prefixResponseItem = "respitem/"
	prefixMode         = "mode/"
	prefixAudit        = "audit/"
	prefixCall         = "call/"
	prefixAttempt      = "attempt/"
	prefixAction       = "action/"
	prefixActionID     = "actionid/"
	prefixTool         = "tool/"
	prefixRuntimeKey   = "key/"
	prefixUsage        = "usage/"
	prefixOpenCall     = "open/call/"
	prefixOpenAction   = "open/action/"
)

// key joins a record type's prefix and the parts of its key.
func key(prefix string, parts ...string) []byte {
	n := len(prefix)
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	k = append(k, prefix...)
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

// hashed is the SHA-256 of s as a key part: 32 bytes whatever s holds.
func hashed(s string) string {
	sum := sha256.Sum256([]byte(s))
	return string(sum[:])
}

// timeKey is prefix, at as 8 big-endian bytes of Unix nanoseconds, and id.
// Times before 1970 sort first, as 1970.
func timeKey(prefix string, at time.Time, id string) []byte {
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(max(at.UnixNano(), 0)))
	return key(prefix, string(ts[:]), id)
}

// cursor is the opaque page cursor of a time-ordered key: the key without
// its prefix, base64url.
func cursor(prefix string, k []byte) string {
	return base64.RawURLEncoding.EncodeToString(k[len(prefix):])
}

// parseCursor turns a cursor back into its key; [store.ErrBadCursor] when
// it is not one [cursor] made.
func parseCursor(prefix, c string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(raw) <= 8 || !store.ValidName(string(raw[8:])) {
		return nil, store.ErrBadCursor
	}
	return key(prefix, string(raw)), nil
}

// prefixEnd is the first key after every key with prefix: a reverse
// iteration seeks to it to start at the prefix's last key.
func prefixEnd(prefix string) []byte {
	end := []byte(prefix)
	end[len(end)-1]++ // every prefix ends in '/', never 0xff
	return end
}
