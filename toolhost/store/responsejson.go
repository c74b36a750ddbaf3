package store

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalResponseRecord is rec as JSON, its JSON fields (Response,
// Messages, Items) as they are: a response is stored once per answer with
// its whole text in each of them, and encoding/json would check and
// compact every byte of them again, and escape the < > & of the text, so
// that GET /v1/responses/{id} would not return the response as it was
// answered. The other fields are written as encoding/json writes them,
// and encoding/json reads the result back into a ResponseRecord. Every
// backend stores a response this way.
func MarshalResponseRecord(rec *ResponseRecord) ([]byte, error) {
	return appendResponseRecord(make([]byte, 0, recordSize(rec)), rec)
}

// appendResponseRecord appends rec as [MarshalResponseRecord] writes it.
func appendResponseRecord(dst []byte, rec *ResponseRecord) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, rec.ID)
	dst = append(dst, `,"key_id":`...)
	dst = appendJSONString(dst, rec.KeyID)
	dst = append(dst, `,"response":`...)
	dst = appendRaw(dst, rec.Response)
	dst = append(dst, `,"messages":`...)
	dst = appendRaws(dst, rec.Messages)
	if rec.Output > 0 {
		dst = append(dst, `,"output":`...)
		dst = strconv.AppendInt(dst, int64(rec.Output), 10)
	}
	if len(rec.Items) > 0 {
		dst = append(dst, `,"items":{`...)
		item := func(id string) {
			dst = appendJSONString(dst, id)
			dst = append(dst, ':')
			dst = appendRaws(dst, rec.Items[id])
		}
		if len(rec.Items) == 1 {
			// An answer without tools has one item: nothing to sort.
			for id := range rec.Items {
				item(id)
			}
		} else {
			for i, id := range slices.Sorted(maps.Keys(rec.Items)) {
				if i > 0 {
					dst = append(dst, ',')
				}
				item(id)
			}
		}
		dst = append(dst, '}')
	}
	t, err := rec.CreatedAt.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"created_at":`...)
	dst = append(dst, t...)
	return append(dst, '}'), nil
}

// recordSize is about the size of rec's JSON, to write it in one buffer.
func recordSize(rec *ResponseRecord) int {
	n := 256 + len(rec.ID) + len(rec.KeyID) + len(rec.Response)
	for _, m := range rec.Messages {
		n += len(m) + 1
	}
	for id, ms := range rec.Items {
		n += len(id) + 8
		for _, m := range ms {
			n += len(m) + 1
		}
	}
	return n
}

// appendJSONString appends s as encoding/json writes a string. The
// strings of a record are ids, which need no escaping: those are written
// as they are, without encoding/json's reflection and allocations; any
// other string goes through it.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendRaw appends a JSON value as it is; none is null.
func appendRaw(dst []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// appendRaws appends a list of JSON values; nil is null.
func appendRaws(dst []byte, raws []json.RawMessage) []byte {
	if raws == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, raw := range raws {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendRaw(dst, raw)
	}
	return append(dst, ']')
}
