// Package history puts a conversation back together for the upstream:
// the turns a client saw only in part are stored under keys of their
// scope ([Keys]), found again and stitched in whole ([Stitch], [Anchor],
// [FindCall], [Placeholder]); a round's request is written from the
// client's messages as written ([Apart], [PlacePrompt], [Join]); and a
// text-mode model reads tool traffic in the frames it was taught
// ([TextFrames]).
package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Store keeps finished turns so that a later request's history can be
// put back together (docs/operations.md). Every [store.Store] implements it.
type Store interface {
	SaveTurn(ctx context.Context, rec store.TurnRecord) error
	FindTurn(ctx context.Context, key string) (store.TurnRecord, bool, error)
}

// History stitching (docs/tool-calls.md). A client keeps only what it saw:
// the visible text, its own tool calls. The model needs more — its text as
// it wrote it, with tool markup or native calls, and every result — or it
// forgets what its tools did and calls them again. So each turn with tool
// activity is stored under the fingerprint of the text the client received
// and the ids of the calls the client saw (its own calls, markdown cards),
// each within the turn's [Scope]: its client key and its conversation.
// When a later request of that key holds such an assistant message after
// those same messages, it is replaced by the stored messages before going
// upstream. A message that matches nothing is forwarded as it is.

// fingerprint identifies the text a client received. Clients trim what they
// store, so the fingerprint does too.
func fingerprint(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	d := sha256.Sum256([]byte(text))
	return "fp:" + hex.EncodeToString(d[:])
}

// cardID finds the call ids of display: markdown cards in a message.
var cardID = regexp.MustCompile(`<details type="tool_calls"[^>]*?\sid="([^"]+)"`)

// Stitch returns body with every assistant message that toolstream
// recognises as one of its turns replaced by that turn's stored rounds.
// It returns body itself when nothing was recognised. Only the turns of
// the client key keyID (store.KeyID; empty without keys) are recognised,
// each only after the messages its own request held (see [Scope]).
func Stitch(ctx context.Context, history Store, keyID string, body []byte) ([]byte, error) {
	// The first message of a conversation has no history to stitch: no
	// parse for it. (A body that spells the role with escapes is parsed
	// below only if it also says "assistant" plainly; a miss only means
	// the message goes upstream as the client sent it.)
	if history == nil || !bytes.Contains(body, []byte(`"assistant"`)) {
		return body, nil
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		return body, nil // ParseRequest already refused bodies that do not parse
	}
	msgs := v.GetArray("messages")
	var (
		out     []*fastjson.Value
		changed bool
		used    = map[string]bool{}
		conv    = NewAnchor()
	)
	for _, m := range msgs {
		role := rawString(m.Get("role"))
		if role != "assistant" {
			conv.add(m, role)
			out = append(out, m)
			continue
		}
		scope := conv.Scope(keyID)
		conv.add(m, role) // as the client sent it: the next turn's request held it so
		rec, ok, err := findTurn(ctx, history, scope, m)
		if err != nil {
			return nil, err
		}
		if !ok || used[rec.ID] || len(rec.Messages) == 0 {
			out = append(out, m)
			continue
		}
		used[rec.ID] = true
		rp := new(fastjson.Parser) // one per record: values live until the next Parse
		arr, err := rp.Parse("[" + joinRaw(rec.Messages) + "]")
		if err != nil {
			out = append(out, m) // a damaged record: forward what the client sent
			continue
		}
		out = append(out, arr.GetArray()...)
		changed = true
	}
	if !changed {
		return body, nil
	}
	var a fastjson.Arena
	arr := a.NewArray()
	for i, m := range out {
		arr.SetArrayItem(i, m)
	}
	v.Set("messages", arr)
	return v.MarshalTo(nil), nil
}

// findTurn looks an assistant message up by its calls' ids, its cards' call
// ids and the fingerprint of its text, in that order, within scope.
func findTurn(ctx context.Context, history Store, scope Scope, m *fastjson.Value) (store.TurnRecord, bool, error) {
	var keys []string
	for _, tc := range m.GetArray("tool_calls") {
		if id := rawString(tc.Get("id")); id != "" {
			keys = append(keys, scope.callKey(id))
		}
	}
	text := messageText(m.Get("content"))
	for _, c := range cardID.FindAllStringSubmatch(text, -1) {
		keys = append(keys, scope.callKey(c[1]))
	}
	if k := scope.textKey(text); k != "" {
		keys = append(keys, k)
	}
	for _, k := range keys {
		rec, ok, err := history.FindTurn(ctx, k)
		if err != nil || ok {
			return rec, ok, err
		}
	}
	return store.TurnRecord{}, false, nil
}

// messageText is a message's content as text: the string, or its text parts
// joined. It decodes the content's raw JSON rather than reading the fastjson
// value: reading unescapes strings in place, and the tree may be marshalled
// again (fastjson's own escaping is not JSON for control characters).
func messageText(c *fastjson.Value) string {
	if c == nil {
		return ""
	}
	raw := c.MarshalTo(nil)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func joinRaw(ms []json.RawMessage) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	return b.String()
}
