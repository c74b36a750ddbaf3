package messages

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/proxy/internal/exchange"
)

// Protocol is POST /v1/messages for the proxy's turn route: the same
// turn as chat completions, read and answered in Anthropic's Messages API
// (docs/http-api.md). The upstream side does not change: every round is a
// chat-completions request. Claude Code's ?beta=true and the
// anthropic-version and anthropic-beta headers are accepted and change
// nothing.
type Protocol struct {
	// History holds the stored turns that earlier answers sent back are
	// restored from; nil when the proxy runs without storage.
	History history.Store
	// NewID mints the message id.
	NewID func(prefix string) string
}

// Source names the protocol in the audit log.
func (p *Protocol) Source() string { return "messages" }

// Read maps the body to a chat request, restores the earlier answers it
// sends back, and parses the result as the chat route parses its
// requests.
func (p *Protocol) Read(ctx context.Context, in exchange.Input) (exchange.Turn, error) {
	mreq, err := ToChat(in.Body)
	if err != nil {
		return nil, err
	}
	if err := p.restoreAnswers(ctx, in.KeyID, mreq); err != nil {
		return nil, err
	}
	req, err := loop.ParseRequest(mreq.Chat)
	if err != nil {
		return nil, err
	}
	req.Hosted, req.MCPServers = mreq.Hosted, mreq.Servers
	if len(mreq.Servers) > 0 && req.Overrides.Display == "" && in.Header.Get(exchange.HeaderDisplay) == "" {
		// The servers' calls are mcp_tool_use and mcp_tool_result
		// blocks, as Anthropic answers them.
		req.Overrides.Display = config.DisplayEvents
	}
	return &answer{p: p, mreq: mreq, req: req}, nil
}

// restoreAnswers puts back the earlier answers whose mcp_tool_use and
// mcp_tool_result blocks the client sent: each names a server call, whose
// stored turn holds the whole answer as the model wrote it, results
// included. The answer's place gets a history.Placeholder, which history
// stitching replaces with the stored rounds before every upstream request.
// A stored turn counts only for the key that wrote it, after the messages
// its request held, as history stitching finds it (history.Scope). A call
// with no such turn (expired, another key's or conversation's, from
// another proxy, or no storage) is refused: the model would read an
// answer whose tool results are missing, and the call is never run again.
func (p *Protocol) restoreAnswers(ctx context.Context, keyID string, r *Request) error {
	if len(r.Restored) == 0 {
		return nil
	}
	if p.History == nil {
		b := r.Restored[0]
		return &Error{Message: fmt.Sprintf("%s %q: this proxy keeps no stored turns (it runs without storage), so an earlier server tool call cannot be restored; send the conversation without the mcp_tool_use and mcp_tool_result blocks", b.Type, b.ID)}
	}
	used := map[string]bool{}
	conv, counted := history.NewAnchor(), 0
	return r.Restore(func(before []json.RawMessage, b Restored) ([]json.RawMessage, error) {
		for _, m := range before[counted:] {
			conv.Add(m)
		}
		counted = len(before)
		id := CallID(b.ID)
		rec, ok, err := history.FindCall(ctx, p.History, conv.Scope(keyID), id)
		if err != nil {
			return nil, fmt.Errorf("finding the stored turn of call %s: %w", id, err)
		}
		if !ok && hostedBlock(b.Type) {
			return nil, nil // see hostedBlock
		}
		if !ok {
			return nil, &Error{Message: fmt.Sprintf("%s %q: no stored turn of this conversation has this call (stored turns are kept per key and conversation, and expire after storage.turn_retention); send the conversation without the mcp_tool_use and mcp_tool_result blocks of that answer", b.Type, b.ID)}
		}
		if used[rec.ID] {
			return nil, nil // the answer is restored already
		}
		used[rec.ID] = true
		var name struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(b.Block, &name)
		return []json.RawMessage{history.Placeholder(id, name.Name)}, nil
	})
}

// answer is one Messages request's side of its turn.
type answer struct {
	p    *Protocol
	mreq *Request
	req  *loop.Request
	enc  *Encoder
}

func (a *answer) Request() *loop.Request { return a.req }
func (a *answer) Stream() bool           { return a.mreq.Stream }
func (a *answer) Relay() bool            { return false }

// Start makes the encoder: streaming events to w, or building one message
// object when w is nil.
func (a *answer) Start(lt *loop.Turn, w exchange.Writer) loop.Out {
	search := a.startSearch(lt)
	opts := Options{ID: a.p.NewID("msg_"), Model: a.mreq.Model, Tools: lt.Tools, search: search}
	if w == nil {
		a.enc = NewMessage(opts)
	} else {
		a.enc = NewStream(w, opts)
	}
	return a.enc
}

// startSearch gives the turn Anthropic's tool search when the request
// offers it: a server tool the proxy runs over the request's deferred
// tools, always shown, and the rounds' client tools without the deferred
// ones not found yet. A tool_choice of none turns it off with the other
// server tools.
func (a *answer) startSearch(lt *loop.Turn) *toolSearch {
	if a.mreq.Search == nil || a.req.ToolChoiceNone {
		return nil
	}
	s := newToolSearch(a.mreq, lt.Executor)
	def := s.def()
	lt.Tools = append(slices.Clip(lt.Tools), def)
	lt.AlwaysShown = append(slices.Clip(lt.AlwaysShown), def.Name)
	lt.Executor = s
	lt.ClientShown = s.shown
	return s
}

// LeftOut lists what the request had that this proxy cannot honour, left
// out of the round; the route logs it.
func (a *answer) LeftOut() []string { return a.mreq.LeftOut() }

// Answer is the message object of a turn that was not streamed.
func (a *answer) Answer() ([]byte, error) { return a.enc.Message() }

// Fail ends a committed stream with one error event, and no
// message_stop, so a cut answer never looks complete.
func (a *answer) Fail(w exchange.Writer, err error, ae exchange.Error, m exchange.Masker) error {
	_, body := errorAnswer(err, ae)
	return w.WriteEvent("error", m.Bytes(body))
}

// ErrorAnswer is err in Anthropic's shape, for every request on the
// Messages route: the key middleware's and the body limit's errors too.
func (p *Protocol) ErrorAnswer(err error, ae exchange.Error) (int, []byte) {
	return errorAnswer(err, ae)
}

var (
	_ exchange.Protocol  = (*Protocol)(nil)
	_ exchange.Turn      = (*answer)(nil)
	_ exchange.LeftOuter = (*answer)(nil)
)
