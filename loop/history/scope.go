package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"

	"github.com/valyala/fastjson"
)

// History records belong to one client key and one conversation. A record
// found by the text "Done." alone, or by a call id anyone can write on a
// made-up card, would hand one key's tool results to another key, or to
// another conversation of the same key. So every lookup key of a record
// is prefixed with its Scope: a hash of the key's id and of the
// conversation as it stood when the turn was asked — the messages of its
// request. A later request finds the record only from the same key, and
// only where the assistant message follows those same messages.
//
// The messages are compared as the client keeps them, not byte for byte:
// role, whitespace-trimmed visible text, tool call ids and tool_call_id.
// A client that re-serialises content as a string or as text parts, adds
// null fields or drops the reasoning still matches. System and developer
// messages do not count: clients rebuild them for every request (a date,
// retrieved memories, Claude Code's billing line), and they are
// instructions, not the conversation.

// Scope names the key and the conversation a history record belongs to.
// It is not a secret: the key's id and a digest of the messages.
type Scope string

// key returns the store's lookup key for k ("fp:…", "call:…") within s.
func (s Scope) key(k string) string { return string(s) + "/" + k }

// callKey is the lookup key, within s, of the turn that made the call id.
func (s Scope) callKey(id string) string { return s.key("call:" + id) }

// textKey is the lookup key, within s, of the turn whose answer the
// client read as text; "" when the text is blank and finds nothing.
func (s Scope) textKey(text string) string {
	fp := fingerprint(text)
	if fp == "" {
		return ""
	}
	return s.key(fp)
}

// Anchor fingerprints a conversation one message at a time, so that the
// scope of every assistant message in a request costs one pass over it.
// The zero value is not ready: use [NewAnchor].
type Anchor struct {
	h, scope hash.Hash
	// buf, text and raw are reused from message to message: a request
	// may hold many thousands.
	buf, text, raw []byte
}

// NewAnchor returns the anchor of an empty conversation.
func NewAnchor() *Anchor { return &Anchor{h: sha256.New(), scope: sha256.New()} }

// Scope is the scope of the message that comes next in the conversation,
// for the client key keyID (store.KeyID; empty without keys).
func (a *Anchor) Scope(keyID string) Scope {
	var sum [sha256.Size]byte
	a.scope.Reset()
	a.scope.Write(appendField(a.buf[:0], keyID))
	a.scope.Write(a.h.Sum(sum[:0])) // Sum leaves a.h as it was
	return Scope(hex.EncodeToString(a.scope.Sum(sum[:0])))
}

// Add counts one chat message, as JSON, into the conversation. A message
// that is not a JSON object counts as nothing.
func (a *Anchor) Add(msg json.RawMessage) {
	var p fastjson.Parser
	if v, err := p.ParseBytes(msg); err == nil && v.Type() == fastjson.TypeObject {
		a.add(v, rawString(v.Get("role")))
	}
}

// add counts m, whose role is role, in. It reads m without unescaping its
// strings in place: the tree may be marshalled again (see messageText).
func (a *Anchor) add(m *fastjson.Value, role string) {
	if role == "system" || role == "developer" {
		return
	}
	a.text = a.text[:0]
	if parts := m.GetArray("content"); parts != nil {
		for _, p := range parts {
			a.text = a.appendString(a.text, p.Get("text"))
		}
	} else {
		a.text = a.appendString(a.text, m.Get("content"))
	}
	calls := m.GetArray("tool_calls")
	b := appendField(a.buf[:0], role)
	b = appendField(b, bytes.TrimSpace(a.text))
	a.text = a.appendString(a.text[:0], m.Get("tool_call_id"))
	b = appendField(b, a.text)
	b = binary.AppendUvarint(b, uint64(len(calls)))
	for _, c := range calls {
		a.text = a.appendString(a.text[:0], c.Get("id"))
		b = appendField(b, a.text)
	}
	a.h.Write(b)
	a.buf = b
}

// appendString appends the text of the JSON string v to dst, decoded; for
// anything else, nothing. Like rawString, it leaves v as it was.
func (a *Anchor) appendString(dst []byte, v *fastjson.Value) []byte {
	if v == nil {
		return dst
	}
	a.raw = v.MarshalTo(a.raw[:0])
	raw := a.raw
	if len(raw) < 2 || raw[0] != '"' {
		return dst
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return append(dst, raw[1:len(raw)-1]...) // nothing escaped: the common case
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return dst
	}
	return append(dst, s...)
}

// appendField appends s with its length first, so that no two different
// messages write the same bytes.
func appendField[T string | []byte](b []byte, s T) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// parserPool holds the parsers of whole request bodies.
var parserPool fastjson.ParserPool

// Keys are the lookup keys a turn is stored under (see [Store]): the
// fingerprint of text, its answer as the client read it, and one key per
// call the client saw (callIDs), all within the scope of the turn's
// request body for the client key keyID. It reports false when body is no
// JSON.
func Keys(body []byte, keyID, text string, callIDs []string) ([]string, bool) {
	scope, ok := conversationScope(body, keyID)
	if !ok {
		return nil, false
	}
	var keys []string
	if k := scope.textKey(text); k != "" {
		keys = append(keys, k)
	}
	for _, id := range callIDs {
		keys = append(keys, scope.callKey(id))
	}
	return keys, true
}

// conversationScope is the scope of an answer to body's messages: the
// scope the next request finds that answer in. It reports false when body
// is no JSON.
func conversationScope(body []byte, keyID string) (Scope, bool) {
	p := parserPool.Get()
	defer parserPool.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return "", false
	}
	a := NewAnchor()
	for _, m := range v.GetArray("messages") {
		a.add(m, rawString(m.Get("role")))
	}
	return a.Scope(keyID), true
}
