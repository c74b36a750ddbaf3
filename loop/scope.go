package loop

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"strings"

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

// Anchor fingerprints a conversation one message at a time, so that the
// scope of every assistant message in a request costs one pass over it.
// The zero value is not ready: use [NewAnchor].
type Anchor struct {
	h   hash.Hash
	buf []byte
}

// NewAnchor returns the anchor of an empty conversation.
func NewAnchor() *Anchor { return &Anchor{h: sha256.New()} }

// Scope is the scope of the message that comes next in the conversation,
// for the client key keyID (store.KeyID; empty without keys).
func (a *Anchor) Scope(keyID string) Scope {
	var sum [sha256.Size]byte
	h := sha256.New()
	h.Write(appendField(nil, keyID))
	h.Write(a.h.Sum(sum[:0])) // Sum leaves a.h as it was
	return Scope(hex.EncodeToString(h.Sum(nil)))
}

// Add counts one chat message, as JSON, into the conversation. A message
// that is not a JSON object counts as nothing.
func (a *Anchor) Add(msg json.RawMessage) {
	var p fastjson.Parser
	if v, err := p.ParseBytes(msg); err == nil {
		a.add(v)
	}
}

// add counts m in. It reads m without unescaping its strings in place: the
// tree may be marshalled again (see messageText).
func (a *Anchor) add(m *fastjson.Value) {
	if m.Type() != fastjson.TypeObject {
		return
	}
	role := rawString(m.Get("role"))
	if role == "system" || role == "developer" {
		return
	}
	calls := m.GetArray("tool_calls")
	b := appendField(a.buf[:0], role)
	b = appendField(b, strings.TrimSpace(messageText(m.Get("content"))))
	b = appendField(b, rawString(m.Get("tool_call_id")))
	b = binary.AppendUvarint(b, uint64(len(calls)))
	for _, c := range calls {
		b = appendField(b, rawString(c.Get("id")))
	}
	a.h.Write(b)
	a.buf = b
}

// appendField appends s with its length first, so that no two different
// messages write the same bytes.
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// conversationScope is the scope of an answer to body's messages: the
// scope the next request finds that answer in.
func conversationScope(body []byte, keyID string) (Scope, bool) {
	p := parserPool.Get()
	defer parserPool.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return "", false
	}
	a := NewAnchor()
	for _, m := range v.GetArray("messages") {
		a.add(m)
	}
	return a.Scope(keyID), true
}
