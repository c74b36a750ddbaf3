package loop

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
)

// The turn's side of history stitching (see package [history]): its
// client's body stitched before the first round, and the turn stored
// after the last, under the keys a later request finds it by.

// storeTimeout bounds bookkeeping writes that must finish even when the
// client is gone.
const storeTimeout = 5 * time.Second

// stitch is [history.Stitch] with the turn's history and client key.
func (tr *turnRun) stitch(ctx context.Context, body []byte) ([]byte, error) {
	return history.Stitch(ctx, tr.t.History, tr.t.KeyID, body)
}

// save stores a turn that had tool activity, so its history can be
// stitched back later, and hands the turn's rounds to an [Out] that asked for them. It
// runs before [DONE]: a client may send its next request the moment it
// reads it. A failed write is logged, not fatal: the client already has
// its answer.
func (tr *turnRun) save(ctx context.Context, last *roundOutcome) {
	// A plain turn has no rounds of its own: the client read what the
	// model wrote.
	tx := tr.s.out.takes.Transcript && !tr.plain
	keep := tr.t.History != nil && (tr.rep.ToolCalls > 0 || len(tr.clientCallIDs) > 0)
	if !keep && !tx {
		return
	}
	var msgs []any
	for i, rec := range tr.history {
		// As the last round's request had them, note included: the next
		// turn's request extends it.
		msgs = append(msgs, tr.messages(rec, i+1 == tr.noted)...)
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
	if tx {
		tr.s.out.out.Transcript(rec.Messages)
	}
	if !keep {
		return
	}
	// The calls the client saw: its own, and the server calls that ran.
	ids := tr.clientCallIDs[:len(tr.clientCallIDs):len(tr.clientCallIDs)]
	for _, rr := range append(tr.history, roundRecord{calls: last.order}) {
		for _, c := range rr.calls {
			if c.p != nil {
				ids = append(ids, c.id)
			}
		}
	}
	// The request as the client sent it: the next request holds these
	// messages before the answer (docs/tool-calls.md).
	keys, ok := history.Keys(tr.t.Request.Body, tr.t.KeyID, tr.visible.String(), ids)
	if !ok {
		return // cannot happen: ParseRequest parsed it
	}
	rec.Keys = keys
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
		out := []any{history.Message{Role: "assistant", Content: ro.text}}
		if ro.clientCalls > 0 || ro.parked() {
			// Server calls ran beside the client's: their results are
			// kept as "tool" messages, which history.TextFrames frames together
			// with the client's results when they come. A parked call's
			// result comes with the next request too (Request.Resume).
			for _, p := range ro.calls {
				if p.result.Status != toolhost.StatusAwaiting {
					out = append(out, history.Message{Role: "tool", ToolCallID: p.call.ID, Name: p.call.Name, Content: toolContent(p.result)})
				}
			}
		}
		return out
	}
	rec := tr.record(ro)
	rec.results = slices.DeleteFunc(rec.results, func(r toolhost.Result) bool { return r.Status == toolhost.StatusAwaiting })
	return tr.messages(rec, false)
}

// parked says a call of the round waits for the client's decision
// (toolhost.StatusAwaiting): the turn ends on it.
func (ro *roundOutcome) parked() bool {
	for _, p := range ro.calls {
		if p.result.Status == toolhost.StatusAwaiting {
			return true
		}
	}
	return false
}
