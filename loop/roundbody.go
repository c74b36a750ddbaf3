package loop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sashabaranov/go-openai"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/chunk"
	"github.com/toolstream/toolstream/loop/history"
	"github.com/toolstream/toolstream/loop/textmode"
	"github.com/toolstream/toolstream/toolhost"
)

// lastRoundNote is added to the last results message when the next round
// is sent without tools (max_rounds or parse_retries reached).
const lastRoundNote = "You cannot call tools any more in this reply. Answer the user now with what you have."

// body builds one round's request from the client's: the client's body
// stays a fastjson tree, so its unknown fields and zero values survive
// (go-openai would drop both); toolstream only touches stream,
// stream_options, its own extension field and messages.
//
// Text mode (docs/tool-calls.md): the tools are taught in a section merged into
// the client's system message (or a new one), and each earlier round follows
// the client's messages as the model's own text, markup included, then one
// result_role message with that round's results.
func (tr *turnRun) body(final bool) ([]byte, error) {
	// Pooled: a fresh parser and arena per round allocated every value of
	// the request anew.
	p, ap, fp, a := parserPool.Get(), parserPool.Get(), parserPool.Get(), arenaPool.Get()
	defer func() {
		parserPool.Put(p)
		parserPool.Put(ap)
		parserPool.Put(fp)
		a.Reset()
		arenaPool.Put(a)
	}()
	if err := tr.frameHistory(); err != nil {
		return nil, err
	}
	tr.teachNew()
	// The messages stay as written, apart from the body parsed: a tree
	// of every message, built again each round, cost hundreds of bytes
	// per message of a long conversation.
	skel, msgs, err := history.Apart(tr.base)
	if err != nil {
		return nil, fmt.Errorf("re-reading the request: %w", err)
	}
	v, err := p.ParseBytes(skel)
	if err != nil {
		return nil, fmt.Errorf("re-reading the request: %w", err)
	}
	tr.upstreamFields(v, a)
	// The last round keeps the prompt and the tools of the rounds before
	// it, whose bytes it extends, and says in its last message that no
	// call can run now; only a turn's first round, with no earlier round
	// to extend, is sent without them.
	bare := final && len(tr.history) == 0
	prompt, quoted := tr.prompt(bare)
	if err := tr.nativeTools(v, a, final, bare); err != nil {
		return nil, err
	}
	sys, first, merged, err := history.PlacePrompt(fp, a, msgs, prompt, quoted)
	if err != nil {
		return nil, err
	}
	// What toolstream adds is encoded by encoding/json (fastjson's own
	// escaping is not JSON for control characters) and parsed once.
	var add []any
	if merged != nil {
		add = append(add, merged)
	}
	if final && len(tr.history) > 0 {
		tr.noted = len(tr.history) // the stored turn keeps the note in place
	}
	for i, rec := range tr.history {
		add = append(add, tr.messages(rec, i+1 == tr.noted)...)
	}
	var added []*fastjson.Value
	enc := []byte(nil)
	if len(add) > 0 {
		if enc, err = json.Marshal(add); err != nil {
			return nil, err
		}
		av, err := ap.ParseBytes(enc)
		if err != nil {
			return nil, err
		}
		added = av.GetArray()
	}
	if merged != nil {
		first.Set("content", added[0].Get("content"))
		added = added[1:]
	}
	// Sized for the request and what was added, so the body is written
	// in one allocation rather than grown: the prompt once in a system
	// message of toolstream's own; twice when merged into the client's,
	// which is written again and may come out longer than it came.
	extra := len(quoted) + len(enc) + 64
	if first != nil {
		extra += len(quoted)
	}
	return history.Join(v.MarshalTo(nil), sys, first, msgs, added, extra)
}

// nativeTools adds the server tools to a native round's tools, unless
// the round is bare (see body); a last round whose tools are all the
// server's says with tool_choice that none can run.
func (tr *turnRun) nativeTools(v *fastjson.Value, a *fastjson.Arena, final, bare bool) error {
	if bare || !tr.native || len(tr.t.Tools) == 0 {
		// Not with none to add: "tools": [] is refused by some servers
		// (OpenAI's among them) where no tools field is fine.
		return nil
	}
	if err := tr.addServerTools(v, a); err != nil {
		return err
	}
	if final && len(tr.clientTools) == 0 {
		// The model is told by the API as well as by the note.
		v.Set("tool_choice", a.NewString("none"))
	}
	return nil
}

// frameHistory puts the client's tool calls and results in the text
// format's syntax and frames, once per turn (and per fallback upstream).
// A native round reads them as they are.
func (tr *turnRun) frameHistory() error {
	if tr.native || tr.framed {
		return nil
	}
	framed, err := history.TextFrames(tr.base, tr.t.Request.Body, tr.t.Format, tr.t.Loop.ResultRole)
	if err != nil {
		return err
	}
	tr.base, tr.framed = framed, true
	return nil
}

// upstreamFields edits the fields of the request's skeleton that are
// toolstream's to set: its own extension out, stream on, usage asked, and
// in text mode the client's tools out.
func (tr *turnRun) upstreamFields(v *fastjson.Value, a *fastjson.Arena) {
	v.Del("toolstream")
	if tr.native {
		tr.hideClientTools(v, a)
	} else {
		// The client's tools are taught, not sent: a text-mode upstream
		// rejects a tools field or ignores it.
		v.Del("tools")
		v.Del("tool_choice")
		v.Del("parallel_tool_calls")
	}
	v.Set("stream", a.NewTrue())
	// Every round's usage is counted, whether or not the client asked
	// for it; a non-streaming client's answer carries it.
	tr.usageOptions(v, a)
}

// prompt is the system prompt toolstream adds to a round, and its JSON
// string: the taught tools in text mode, and why the server tools cannot
// run when none can. A bare round (a last round that is the first)
// teaches nothing.
func (tr *turnRun) prompt(bare bool) (prompt, quoted string) {
	if bare {
		return "", ""
	}
	if !tr.native {
		prompt, quoted = textmode.PromptJSON(tr.t.Format, tr.taught())
	}
	if len(tr.t.Tools) == 0 && len(tr.t.Unavailable) > 0 {
		// Every server tool is unavailable now: the model hears why, in
		// any mode, instead of being left to call a tool it knows from
		// earlier turns.
		note := unavailableNote(tr.t.Unavailable)
		if prompt != "" { // under the taught client tools' heading
			note = strings.TrimPrefix(note, "# Tools\n\n")
		}
		prompt = joinSections(prompt, note)
		q, _ := json.Marshal(prompt) // a string always encodes
		quoted = string(q)
	}
	return prompt, quoted
}

// unavailableNote is the system-prompt section of a turn whose server
// tools all cannot run now: which, when known, and why. It names them
// rather than saying "no tools": the client's own tools may still be
// there.
//
//	# Tools
//
//	Tools that cannot be used right now:
//	- notes_search, notes_add: MCP server notes is not connected
//
//	Do not call them: answer without them, and tell the user if the request needs one.
func unavailableNote(down []Unavailable) string {
	var b strings.Builder
	b.WriteString("# Tools\n\nTools that cannot be used right now:\n")
	for _, u := range down {
		b.WriteString("- ")
		if len(u.Names) > 0 {
			b.WriteString(strings.Join(u.Names, ", ") + ": ")
		}
		b.WriteString(u.Reason + "\n")
	}
	b.WriteString("\nDo not call them: answer without them, and tell the user if the request needs one.")
	return b.String()
}

// taught are the tools text mode's prompt teaches: the server tools
// shown, then the client's own. One prompt for both, in one syntax: a
// model taught two would mix them. The set is the turn's first round's,
// every round: a tool shown later is taught after the history instead
// (teachNew), so the prompt's bytes, which every later round starts
// with, do not change.
func (tr *turnRun) taught() []toolhost.Tool {
	if tr.prompt0 == nil {
		tools := tr.prompted()
		defs := tr.clientToolDefs()
		tr.prompt0 = append(tools[:len(tools):len(tools)], defs...)
		if tr.prompt0 == nil {
			tr.prompt0 = noTools
		}
	}
	return tr.prompt0
}

func joinSections(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// messages renders a finished round for the upstream. Text mode: the
// model's text as written, then one result_role message with every result
// (docs/tool-calls.md) and the tools taught since; lastNote adds that no
// tools are left. Native mode: the assistant message with its tool_calls,
// then one role "tool" message per result (docs/tool-calls.md), and
// lastNote's in a user message.
func (tr *turnRun) messages(rec roundRecord, lastNote bool) []any {
	if !rec.native {
		fb := textmode.Feedback(tr.t.Format, rec.results)
		if len(rec.found) > 0 {
			fb += "\n\n" + textmode.Found(rec.found)
		}
		if lastNote {
			fb += "\n\n" + lastRoundNote
		}
		return []any{history.Message{Role: "assistant", Content: rec.text}, history.Message{Role: tr.t.Loop.ResultRole, Content: fb}}
	}
	am := history.Message{Role: "assistant"}
	if rec.visible != "" || len(rec.calls) == 0 {
		am.Content = rec.visible // null only beside tool_calls
	}
	for _, c := range rec.calls {
		am.ToolCalls = append(am.ToolCalls, openai.ToolCall{ID: c.id, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: c.name, Arguments: c.args}})
	}
	out := []any{am}
	for _, r := range rec.results {
		out = append(out, history.Message{Role: "tool", ToolCallID: r.CallID, Content: toolContent(r)})
	}
	if lastNote {
		out = append(out, history.Message{Role: "user", Content: lastRoundNote})
	}
	return out
}

// ToolContent is a server result as the model reads it back in a role
// "tool" message: what a client protocol that restores an earlier call
// must send, byte for byte as the turn sent it.
func ToolContent(r toolhost.Result) string { return toolContent(r) }

// toolContent is a result as a role "tool" message carries it: the
// result's text (JSON stays JSON), or {"error":{…}} for a failure; our
// markers are defused, since local models echo results and the detectors
// run in every mode.
func toolContent(r toolhost.Result) string {
	if r.Err != nil {
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": r.Err.Code, "message": textmode.Neutralize(r.Err.Message)}})
		return string(b)
	}
	return textmode.Neutralize(r.Content)
}

// addServerTools merges the server tools into the request's tools, after
// the client's own (docs/tool-calls.md, native mode).
func (tr *turnRun) addServerTools(v *fastjson.Value, a *fastjson.Arena) error {
	var defs []openai.Tool
	for _, t := range tr.offered() {
		defs = append(defs, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	enc, err := json.Marshal(defs)
	if err != nil {
		return err
	}
	var p fastjson.Parser
	tv, err := p.ParseBytes(enc)
	if err != nil {
		return err
	}
	client := v.GetArray("tools")
	all := append(client[:len(client):len(client)], tv.GetArray()...)
	out := a.NewArray()
	for i, t := range tr.inSentOrder(all) {
		out.SetArrayItem(i, t)
	}
	// The tree is marshalled before p is used again or dropped.
	v.Set("tools", chunk.RawValue(a, string(out.MarshalTo(nil))))
	return nil
}
