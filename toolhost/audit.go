package toolhost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// auditExcerptBytes bounds the result excerpt kept in an audit record.
const auditExcerptBytes = 1 << 10

// redactedValue replaces a redacted argument in the audit log.
const redactedValue = "[redacted]"

// redact masks the values of the named fields wherever they appear in the
// arguments (nested objects and arrays included): a password is a password
// at any depth. Arguments that are not JSON are left as they are: there
// are no fields to find in them.
func redact(args json.RawMessage, fields []string) json.RawMessage {
	if len(fields) == 0 || len(args) == 0 {
		return args
	}
	v, err := decodeJSON(args)
	if err != nil {
		return args
	}
	v, changed := redactValue(v, fields)
	if !changed {
		return args
	}
	out, err := marshalCompact(v)
	if err != nil {
		return json.RawMessage(`"[arguments withheld: could not be redacted]"`)
	}
	return out
}

func redactValue(v any, fields []string) (any, bool) {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			if slices.Contains(fields, k) {
				t[k], changed = redactedValue, true
				continue
			}
			if nv, c := redactValue(sub, fields); c {
				t[k], changed = nv, true
			}
		}
	case []any:
		for i, sub := range t {
			if nv, c := redactValue(sub, fields); c {
				t[i], changed = nv, true
			}
		}
	}
	return v, changed
}

// argsHash identifies a call's arguments across attempts of a turn: the
// hex SHA-256 of their canonical JSON (keys sorted, compact), so that the
// same arguments in another key order are the same call.
func argsHash(args json.RawMessage) string {
	canon := []byte(args)
	if v, err := decodeJSON(args); err == nil {
		if b, err := marshalCompact(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// asJSON keeps arguments that are JSON as they are and turns anything else
// (a block the model wrote that never parsed) into a JSON string, so an
// audit record is always valid JSON.
func asJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(strings.ToValidUTF8(string(raw), "\uFFFD"))
	return b
}

// auditExcerpt is the start of a result, cut at a rune boundary.
func auditExcerpt(s string) string { return clip.Excerpt(s, auditExcerptBytes) }
