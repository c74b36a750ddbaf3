package loop

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// Event is toolstream's extension object on a chunk (docs/stream.md, display:
// events). Standard SDKs ignore it; apps read it to show tool activity.
type Event struct {
	// Event is tool.started, tool.progress, tool.finished,
	// approval.requested, approval.resolved, round.started, mode.fallback
	// or upstream.fallback.
	Event  string `json:"event"`
	CallID string `json:"call_id,omitempty"`
	Name   string `json:"name,omitempty"`
	// Arguments are the call's arguments as the model wrote them
	// (tool.started), or as the approval holds them (approval.requested);
	// on approval.resolved and tool.finished, those an approver ran the
	// call with instead, when they changed them (absent otherwise).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Round     int             `json:"round"`
	// Status is ok, error, denied or cancelled (tool.finished).
	Status string `json:"status,omitempty"`
	// Result is the result excerpt: the JSON result itself when it fits in
	// display_result_bytes, else a string cut there (Truncated set).
	Result    json.RawMessage     `json:"result,omitempty"`
	Truncated bool                `json:"truncated,omitempty"`
	Error     *toolhost.ToolError `json:"error,omitempty"`
	// DurationMS is the call's wall time (tool.finished).
	DurationMS *int64 `json:"duration_ms,omitempty"`
	// Full is the whole result (tool.finished), for an [Out] of typed events; chat
	// chunks carry the excerpt in Result.
	Full *toolhost.Result `json:"-"`
	// From, To and Reason describe a mode.fallback (the tool modes and the
	// upstream's refusal) or an upstream.fallback (the upstreams' names,
	// and what the first answered or that it could not be reached).
	// Reason is also a deny's reason (approval.resolved).
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason,omitempty"`
	// ActionID and ExpiresAt name the approval a call waits for
	// (approval.requested; ActionID also on approval.resolved).
	ActionID  string     `json:"action_id,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// Decision is approved, denied or expired (approval.resolved).
	Decision string `json:"decision,omitempty"`
	// Progress, Total and Message are how far a running call got, as its
	// tool reported it (tool.progress); Total is left out when unknown.
	Progress *float64 `json:"progress,omitempty"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
	// Hosted is the hosted tool kind (web_search, web_fetch) a call of
	// tool.started or tool.finished ran for (Turn.Hosted): its Out shows
	// it in its protocol's own form (a web_search_call item, a
	// server_tool_use block), whatever the turn's display.
	Hosted string `json:"hosted,omitempty"`
	// RunBy is the server tool that ran a hosted call (search_web).
	RunBy string `json:"run_by,omitempty"`
}

// MarshalJSON writes call_id and name on every tool.* and approval.* event,
// also when they are empty (a block too malformed to name its tool):
// docs/stream.md says those events always carry them, and apps key their cards
// on them.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if !strings.HasPrefix(e.Event, "tool.") && !strings.HasPrefix(e.Event, "approval.") {
		return json.Marshal(plain(e))
	}
	// The outer fields win over the embedded ones of the same name.
	return json.Marshal(struct {
		Event  string `json:"event"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		plain
	}{e.Event, e.CallID, e.Name, plain(e)})
}

func toolStarted(p *pending) Event {
	ev := Event{Event: "tool.started", CallID: p.call.ID, Name: p.call.Name, Round: p.call.Round}
	if json.Valid(p.call.Arguments) {
		ev.Arguments = p.call.Arguments
	}
	return ev
}

// approvalEvent shows that a call waits for a decision, or got one. Only
// with display: events; with markdown or none an app finds pending
// actions through GET /v1/actions.
func (tr *turnRun) approvalEvent(n *approvalNote) error {
	ev := Event{Event: n.event, CallID: n.call.ID, Name: n.call.Name, Round: n.call.Round, ActionID: n.action.ID}
	if n.event == "approval.requested" {
		at := n.action.ExpiresAt
		ev.ExpiresAt = &at
		// What the person decides on: the arguments as the action holds
		// them (coerced, redact fields masked).
		if json.Valid(n.action.Arguments) {
			ev.Arguments = n.action.Arguments
		}
	} else {
		ev.Decision, ev.Reason = n.action.Status, n.action.Reason
		if json.Valid(n.action.EditedArguments) {
			ev.Arguments = n.action.EditedArguments // redact fields masked
		}
	}
	return tr.event(ev)
}

func roundStarted(n int) Event { return Event{Event: "round.started", Round: n} }

// event hands ev to the Out when the turn displays events. A hosted
// tool's call is the hosted tool's own answer, which the client offered
// the tool to read: its start and finish go out whatever the display.
func (tr *turnRun) event(ev Event) error {
	if by, ok := tr.t.Hosted[ev.Name]; ok && (ev.Event == "tool.started" || ev.Event == "tool.finished") {
		ev.Hosted, ev.RunBy = ev.Name, by
	}
	tr.watch(&ev)
	if tr.t.Loop.Display != config.DisplayEvents && ev.Hosted == "" {
		return nil
	}
	return tr.s.sendEvent(&ev)
}

// showFinished tells the client a call finished: a tool.finished event, or
// a card in the content with display: markdown.
func (tr *turnRun) showFinished(p *pending) error {
	r := p.result
	if r.Status == toolhost.StatusAwaiting {
		return nil // not finished: its approval request is what shows
	}
	result, truncated := excerpt(r, tr.t.Loop.DisplayResultBytes.Int())
	display := tr.t.Loop.Display
	if _, ok := tr.t.Hosted[p.call.Name]; ok {
		display = config.DisplayEvents // see event
	}
	d := r.Duration.Milliseconds()
	ev := Event{
		Event: "tool.finished", CallID: p.call.ID, Name: p.call.Name, Round: p.call.Round,
		Status: r.Status, Result: result, Truncated: truncated, Error: r.Err, DurationMS: &d, Full: &r,
	}
	if r.Edited && json.Valid(r.Arguments) {
		ev.Arguments = r.Arguments // what ran: not what tool.started showed
	}
	switch display {
	case config.DisplayEvents:
		return tr.event(ev)
	case config.DisplayMarkdown:
		tr.watch(&ev)
		return tr.sendContent(nil, card(p, result))
	}
	tr.watch(&ev)
	return nil
}

// watch tells [Turn.Watch] of ev.
func (tr *turnRun) watch(ev *Event) {
	if f := tr.t.Watch; f != nil {
		f(tr.id, ev)
	}
}

// excerpt is what the client is shown of a result: a JSON result as JSON
// when it fits in max bytes, otherwise text cut at a rune boundary.
func excerpt(r toolhost.Result, max int) (json.RawMessage, bool) {
	if r.Err != nil {
		return nil, false
	}
	if r.IsJSON && len(r.Content) <= max && json.Valid([]byte(r.Content)) {
		return json.RawMessage(r.Content), false
	}
	s, cut := r.Content, false
	if len(s) > max {
		s, cut = clip.Prefix(s, max), true
	}
	b, _ := json.Marshal(s)
	return b, cut
}

// card renders a finished call the way chat UIs (Open WebUI and others) already
// render tool calls: a collapsible <details type="tool_calls"> with the
// arguments and result as attributes, and a readable summary and excerpt for
// renderers that only know HTML (docs/stream.md, display: markdown).
//
//	<details type="tool_calls" done="true" id="call_…" name="get_weather" arguments="{&quot;city&quot;:&quot;Paris&quot;}" result="{&quot;temp_c&quot;:21}">
//	<summary>get_weather ✓ 120 ms</summary>
//
//	```json
//	{"temp_c":21}
//	```
//	</details>
func card(p *pending, result json.RawMessage) string {
	r := p.result
	var b strings.Builder
	b.WriteString("\n\n<details type=\"tool_calls\" done=\"true\" id=\"")
	b.WriteString(html.EscapeString(p.call.ID))
	b.WriteString("\" name=\"")
	b.WriteString(html.EscapeString(p.call.Name))
	b.WriteString("\" arguments=\"")
	b.WriteString(html.EscapeString(string(r.Arguments)))
	b.WriteString("\" result=\"")
	body := string(result)
	if r.Err != nil {
		eb, _ := json.Marshal(map[string]any{"error": r.Err})
		body = string(eb)
	}
	b.WriteString(html.EscapeString(body))
	b.WriteString("\">\n<summary>")
	b.WriteString(html.EscapeString(p.call.Name))
	if r.Err != nil {
		fmt.Fprintf(&b, " ✗ %s", html.EscapeString(r.Err.Code))
	} else {
		b.WriteString(" ✓")
	}
	fmt.Fprintf(&b, " %d ms</summary>\n\n", r.Duration.Milliseconds())
	if r.Err != nil {
		b.WriteString(html.EscapeString(r.Err.Message))
		b.WriteString("\n")
	} else {
		shown, fence := body, "```json\n"
		var s string
		if json.Unmarshal(result, &s) == nil {
			shown, fence = s, "```\n" // a text result: the text, not its JSON quoting
		}
		b.WriteString(fence)
		b.WriteString(strings.ReplaceAll(shown, "```", "ʼʼʼ"))
		b.WriteString("\n```\n")
	}
	b.WriteString("</details>\n\n")
	return b.String()
}
