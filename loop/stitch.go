package loop

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/toolhost/store"
)

// HistoryStore keeps finished turns so that a later request's history can
// be put back together (docs/operations.md). Every [store.Store] implements it.
type HistoryStore interface {
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

// storeTimeout bounds bookkeeping writes that must finish even when the
// client is gone.
const storeTimeout = 5 * time.Second

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
func Stitch(ctx context.Context, history HistoryStore, keyID string, body []byte) ([]byte, error) {
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

// stitch is [Stitch] with the turn's history and client key.
func (tr *turnRun) stitch(ctx context.Context, body []byte) ([]byte, error) {
	return Stitch(ctx, tr.t.History, tr.t.KeyID, body)
}

// findTurn looks an assistant message up by its calls' ids, its cards' call
// ids and the fingerprint of its text, in that order, within scope.
func findTurn(ctx context.Context, history HistoryStore, scope Scope, m *fastjson.Value) (store.TurnRecord, bool, error) {
	var keys []string
	for _, tc := range m.GetArray("tool_calls") {
		if id := rawString(tc.Get("id")); id != "" {
			keys = append(keys, scope.key("call:"+id))
		}
	}
	text := messageText(m.Get("content"))
	for _, c := range cardID.FindAllStringSubmatch(text, -1) {
		keys = append(keys, scope.key("call:"+c[1]))
	}
	if fp := fingerprint(text); fp != "" {
		keys = append(keys, scope.key(fp))
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

// save stores a turn that had tool activity, so its history can be
// stitched back later, and hands the turn's rounds to a [Transcriber]. It
// runs before [DONE]: a client may send its next request the moment it
// reads it. A failed write is logged, not fatal: the client already has
// its answer.
func (tr *turnRun) save(ctx context.Context, last *roundOutcome) {
	tx, _ := tr.s.out.events.(Transcriber)
	if tr.plain {
		tx = nil // no rounds of its own: the client read what the model wrote
	}
	keep := tr.t.History != nil && (tr.rep.ToolCalls > 0 || len(tr.clientCallIDs) > 0)
	if !keep && tx == nil {
		return
	}
	var msgs []any
	for _, rec := range tr.history {
		msgs = append(msgs, tr.messages(rec, false)...)
	}
	msgs = append(msgs, tr.lastMessages(last)...)
	// CreatedAt is left to the store's clock: the record's expiry counts
	// from it, and the runner's clock may be pinned (tests).
	rec := store.TurnRecord{ID: tr.id}
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return
		}
		rec.Messages = append(rec.Messages, b)
	}
	if tx != nil {
		tx.Transcript(rec.Messages)
	}
	if !keep {
		return
	}
	// The request as the client sent it: the next request holds these
	// messages before the answer (docs/tool-calls.md).
	scope, ok := conversationScope(tr.t.Request.Body, tr.t.KeyID)
	if !ok {
		return // cannot happen: ParseRequest parsed it
	}
	if fp := fingerprint(tr.visible.String()); fp != "" {
		rec.Keys = append(rec.Keys, scope.key(fp))
	}
	for _, id := range tr.clientCallIDs {
		rec.Keys = append(rec.Keys, scope.key("call:"+id))
	}
	for _, rr := range append(tr.history, roundRecord{calls: last.order}) {
		for _, c := range rr.calls {
			if c.p != nil {
				rec.Keys = append(rec.Keys, scope.key("call:"+c.id))
			}
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := tr.t.History.SaveTurn(sctx, rec); err != nil {
		tr.r.log().Warn("saving the turn for history stitching", "turn_id", rec.ID, "error", err)
	}
}

// lastMessages renders the turn's last round: the model's final text (text
// mode), or the assistant message with the calls it handed out and the
// results of the server calls that ran beside them (native, and a
// text-mode round with native calls: see record).
func (tr *turnRun) lastMessages(ro *roundOutcome) []any {
	if !tr.native && !ro.native.named() {
		out := []any{message{Role: "assistant", Content: ro.text}}
		if ro.clientCalls > 0 {
			// Server calls ran beside the client's: their results are
			// kept as "tool" messages, which textHistory frames together
			// with the client's results when they come.
			for _, p := range ro.calls {
				out = append(out, nativeMessage{Role: "tool", ToolCallID: p.call.ID, Name: p.call.Name, Content: toolContent(p.result)})
			}
		}
		return out
	}
	rec := tr.record(ro)
	return tr.messages(rec, false)
}
