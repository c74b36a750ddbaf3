package responses

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/aside"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Store keeps the answers of POST /v1/responses that ask to be stored,
// per client key; the storage backends implement it.
type Store interface {
	SaveResponse(ctx context.Context, rec store.ResponseRecord) error
	Response(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error)
	ResponseByItem(ctx context.Context, keyID, itemID string) (store.ResponseRecord, bool, error)
}

// saveTimeout bounds the write of a stored response, which must finish
// even when the client left as its answer ended.
const saveTimeout = 5 * time.Second

// Protocol is POST /v1/responses for the proxy's turn route: the same
// turn as chat completions, read from a Responses request and answered as
// Responses events or one response object (docs/http-api.md).
type Protocol struct {
	// Store keeps responses asked to be stored; nil when the proxy runs
	// without storage.
	Store Store
	// NewID mints the response's and its items' ids; Now is the clock of
	// its created_at.
	NewID func(prefix string) string
	Now   func() time.Time
	// Log hears of a response that could not be stored.
	Log *slog.Logger
	// Approvals reads and decides the approvals a request answers in
	// OpenAI's wire form (mcp_approval_response); nil without storage.
	Approvals Approvals
}

// Source names the protocol in the audit log.
func (p *Protocol) Source() string { return "responses" }

// Read reads the body as a Responses request, completes it from storage,
// and parses the chat request it became. The turn displays events unless
// the request says otherwise: server calls become mcp_call items, which
// are made from them; a request may still ask for markdown or none.
func (p *Protocol) Read(ctx context.Context, in exchange.Input) (exchange.Turn, error) {
	r, err := ToChat(in.Body)
	if err != nil {
		return nil, err
	}
	if err := p.continueStored(ctx, in.KeyID, r); err != nil {
		return nil, err
	}
	req, err := loop.ParseRequest(r.Chat)
	if err != nil {
		return nil, err
	}
	req.Hosted, req.Ask, req.Resume, req.MCPServers = r.Hosted, r.Ask, r.Resume, r.Servers
	if req.Overrides.Display == "" && in.Header.Get(exchange.HeaderDisplay) == "" {
		req.Overrides.Display = config.DisplayEvents
	}
	if err := askDisplay(r, req.Overrides.Display, in.Header.Get(exchange.HeaderDisplay)); err != nil {
		return nil, err
	}
	a := &answer{p: p, ctx: ctx, keyID: in.KeyID, r: r, req: req}
	if r.Store && p.Store != nil {
		if a.conversation, err = r.Conversation(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// continueStored completes a request from storage: previous_response_id
// puts the stored conversation first, and the mcp_call and
// mcp_approval_request items sent back, and item_reference items, are
// replaced by what they stand for, from the response that answered with
// them — a server call is never run again. A call a stored response
// ended on for approval is resumed (mcpask_resume.go), once the request's
// mcp_approval_response items are applied.
func (p *Protocol) continueStored(ctx context.Context, keyID string, r *Request) error {
	resumed := map[string]bool{}
	if id := r.PreviousResponseID; id != "" {
		rec, ok, err := p.storedResponse(ctx, keyID, id)
		if err != nil {
			return err
		}
		if !ok {
			return &PreviousNotFoundError{ID: id}
		}
		msgs, err := p.continueParked(ctx, r, rec, resumed)
		if err != nil {
			return err
		}
		if err := r.Prepend(msgs); err != nil {
			return err
		}
		if err := r.nameOutputs(msgs, rec.Response); err != nil {
			return err
		}
	}
	if err := r.Resend(func(id string) (Sent, bool, error) { return p.sent(ctx, keyID, id) }); err != nil {
		return err
	}
	if len(r.Restored) > 0 {
		if err := r.Restore(func(it Restored) ([]json.RawMessage, error) { return p.restore(ctx, keyID, r, it, resumed) }); err != nil {
			return err
		}
	}
	return p.decide(ctx, keyID, r, resumed)
}

// continueParked is rec's conversation, each call it ended on for
// approval followed by the slot of its result.
func (p *Protocol) continueParked(ctx context.Context, r *Request, rec store.ResponseRecord, resumed map[string]bool) ([]json.RawMessage, error) {
	parked, err := p.parkedIn(ctx, rec)
	if err != nil || len(parked) == 0 {
		return rec.Messages, err
	}
	msgs := rec.Messages[:len(rec.Messages):len(rec.Messages)]
	for _, pc := range parked {
		resumed[pc.call.Action] = pc.closed == ""
		slot, err := r.resultSlot(pc)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, slot)
	}
	return msgs, nil
}

// sent is the output of the stored response that answered with item id,
// as Request.Resend puts it back; false for one stored before responses
// kept their rounds apart (Output).
func (p *Protocol) sent(ctx context.Context, keyID, id string) (Sent, bool, error) {
	rec, ok, err := p.responseByItem(ctx, keyID, id)
	if err != nil || !ok || rec.Output <= 0 || rec.Output > len(rec.Messages) {
		return Sent{}, false, err
	}
	return Sent{IDs: SentIDs(rec.Response), Messages: rec.Messages[len(rec.Messages)-rec.Output:]}, true, nil
}

// restore is what an item sent back stands for, from the stored response
// that answered with it.
func (p *Protocol) restore(ctx context.Context, keyID string, r *Request, it Restored, resumed map[string]bool) ([]json.RawMessage, error) {
	rec, ok, err := p.responseByItem(ctx, keyID, it.ID)
	if err != nil {
		return nil, err
	}
	if !ok && it.Type == hostedItem {
		return nil, nil // see hostedItem
	}
	if !ok {
		return nil, &Error{Param: "input", Code: CodeUnknownItem, Message: fmt.Sprintf(
			"%s %q names no item of a stored response of this key (or it expired); send only items this proxy answered with, within storage.turn_retention, from responses kept with store: true", it.Type, it.ID)}
	}
	if it.Type != "mcp_approval_request" || resumed[it.ID] {
		return rec.Items[it.ID], nil
	}
	waiting, err := p.parkedIn(ctx, rec)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(waiting, func(pc parked) bool { return pc.call.Action == it.ID && pc.closed == "" })
	if i < 0 {
		// Asked inside a stream, or resumed since: the mcp_call item
		// that followed stands for the call.
		return nil, nil
	}
	resumed[it.ID] = true
	return r.resumeMessages(waiting[i])
}

// storedResponse reads keyID's response id; without storage there is
// none.
func (p *Protocol) storedResponse(ctx context.Context, keyID, id string) (store.ResponseRecord, bool, error) {
	if p.Store == nil {
		return store.ResponseRecord{}, false, nil
	}
	return p.Store.Response(ctx, keyID, id)
}

// keep stores a finished response. It runs before the stream's last
// event, so it must finish when the client leaves at that moment; a failed
// write is logged, not fatal: the client has its answer.
func (p *Protocol) keep(ctx context.Context, rec store.ResponseRecord) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveTimeout)
	defer cancel()
	// Aside: storing runs deep (the record's encoding, the storage's
	// write), and is reached from the end of a turn.
	var err error
	aside.Do(func() { err = p.Store.SaveResponse(sctx, rec) })
	if err != nil {
		p.Log.LogAttrs(ctx, slog.LevelWarn, "storing the response", slog.String("response_id", rec.ID), slog.String("error", err.Error()))
	}
}

// ErrorAnswer is err in OpenAI's shape, as on every OpenAI route.
func (p *Protocol) ErrorAnswer(_ error, ae exchange.Error) (int, []byte) {
	return ae.Status, ae.Body()
}

// PreviousNotFoundError is a previous_response_id that names no stored
// response of the caller's key: never stored, expired, deleted, or
// another key's.
type PreviousNotFoundError struct{ ID string }

func (e *PreviousNotFoundError) Error() string {
	return fmt.Sprintf("Previous response with id '%s' not found.", e.ID)
}

// answer is one Responses request's side of its turn.
type answer struct {
	p     *Protocol
	ctx   context.Context // the request's: a stored response is filed under it
	keyID string
	r     *Request
	req   *loop.Request
	// conversation is the request's chat messages, kept with a stored
	// response; nil when it is not stored.
	conversation []json.RawMessage
	enc          *Encoder
}

func (a *answer) Request() *loop.Request { return a.req }
func (a *answer) Stream() bool           { return a.r.Stream }
func (a *answer) Relay() bool            { return false }

// LeftOut is what the request held that the round leaves out; the route
// logs it.
func (a *answer) LeftOut() []string { return a.r.LeftOut() }

// Start makes the encoder of the answer: streaming to w, or collecting
// one response object when w is nil; with store, it keeps the finished
// response under the caller's key. A Responses conversation comes whole:
// from a stored response, or from items restored one by one, so history
// stitching, which would expand a call it recognises into its whole turn
// a second time, is off.
func (a *answer) Start(t *loop.Turn, w exchange.Writer) loop.Out {
	t.History = nil
	opts := Options{ID: a.p.NewID("resp_"), Created: a.p.Now().Unix(), NewID: a.p.NewID, Tools: t.Tools}
	if a.r.Store && a.p.Store != nil {
		opts.Keep = func(f Finished) {
			a.p.keep(a.ctx, store.ResponseRecord{ID: opts.ID, KeyID: a.keyID, Response: f.Response,
				Messages: append(a.enc.fillResumed(a.conversation), f.Messages...), Output: len(f.Messages), Items: f.Items})
		}
	}
	if w != nil {
		opts.Writer = w
	}
	a.enc = NewEncoder(a.r, opts)
	return a.enc
}

// Answer is the response object of a turn that was not streamed.
func (a *answer) Answer() ([]byte, error) { return a.enc.Response() }

// Fail ends a committed stream: response.failed and an error event, with
// no response.completed.
func (a *answer) Fail(_ exchange.Writer, _ error, ae exchange.Error, m exchange.Masker) error {
	code, msg := ae.Parts()
	return a.enc.Fail(code, m.String(msg))
}

var (
	_ exchange.Protocol  = (*Protocol)(nil)
	_ exchange.Turn      = (*answer)(nil)
	_ exchange.LeftOuter = (*answer)(nil)
)
