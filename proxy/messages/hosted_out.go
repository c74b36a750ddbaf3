package messages

import (
	"encoding/json"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy/internal/hosted"
	"github.com/toolstream/toolstream/toolhost"
)

// serverToolUsePrefix starts the id of a server_tool_use block (and the
// tool_use_id of its result block): "srvtoolu_" + the call id.
const serverToolUsePrefix = "srvtoolu_"

// ServerToolUseID is the id of the server_tool_use block of a hosted
// tool's call callID.
func ServerToolUseID(callID string) string { return serverToolUsePrefix + callID }

// serverToolUseBlock is a call of the client's hosted tool (web_search,
// web_fetch) that a server tool ran (hosted_tools), as Anthropic's own
// server tools answer.
type serverToolUseBlock struct {
	Type  string          `json:"type"` // "server_tool_use"
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// hostedResultBlock is a web_search_tool_result or web_fetch_tool_result:
// Content is a list of web_search_result, a web_fetch_result, or the
// kind's error object.
type hostedResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
}

type webSearchResult struct {
	Type  string `json:"type"` // "web_search_result"
	URL   string `json:"url"`
	Title string `json:"title"`
	// EncryptedContent is Anthropic's opaque page content, passed back
	// for citations; the proxy has none to give (the model read the whole
	// result already), so it is empty.
	EncryptedContent string  `json:"encrypted_content"`
	PageAge          *string `json:"page_age"`
}

type webFetchResult struct {
	Type        string      `json:"type"` // "web_fetch_result"
	URL         string      `json:"url"`
	Content     webDocument `json:"content"`
	RetrievedAt *string     `json:"retrieved_at"` // null: the bound tool does not say when it fetched

}

type webDocument struct {
	Type   string    `json:"type"` // "document"
	Source docSource `json:"source"`
	Title  string    `json:"title,omitempty"`
}

type docSource struct {
	Type      string `json:"type"` // "text"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// hostedError is the error object of a hosted tool's result block.
type hostedError struct {
	Type      string `json:"type"` // web_search_tool_result_error, web_fetch_tool_error
	ErrorCode string `json:"error_code"`
}

// serverToolUse is usage.server_tool_use: the hosted calls the answer made.
type serverToolUse struct {
	WebSearchRequests int `json:"web_search_requests"`
	WebFetchRequests  int `json:"web_fetch_requests,omitempty"`
}

// hostedEvent shows a hosted tool's call (Event.Hosted) as Anthropic's own
// server tools answer: a server_tool_use block when it starts, then a
// web_search_tool_result or web_fetch_tool_result block, each whole in
// its content_block_start; usage counts it in server_tool_use.
func (e *Encoder) hostedEvent(ev *loop.Event) error {
	switch ev.Event {
	case "tool.started":
		if err := e.settle(); err != nil {
			return err
		}
		return e.serverToolUse(ev.CallID, ev.Name, ev.Arguments)
	case "tool.finished":
		if err := e.settle(); err != nil {
			return err
		}
		if !e.shown[ev.CallID] {
			var args json.RawMessage
			if ev.Full != nil {
				args = ev.Full.Arguments
			}
			if err := e.serverToolUse(ev.CallID, ev.Name, args); err != nil {
				return err
			}
		}
		e.countHosted(ev.Hosted)
		return e.whole(hostedResult(ev))
	}
	return nil
}

// serverToolUse sends a hosted call's server_tool_use block.
func (e *Encoder) serverToolUse(callID, name string, args json.RawMessage) error {
	if e.shown == nil {
		e.shown = map[string]bool{}
	}
	e.shown[callID] = true
	return e.whole(serverToolUseBlock{Type: "server_tool_use", ID: ServerToolUseID(callID), Name: name, Input: inputOf(args)})
}

// countHosted counts one hosted call in usage.server_tool_use.
func (e *Encoder) countHosted(kind string) {
	if e.usage.ServerToolUse == nil {
		e.usage.ServerToolUse = &serverToolUse{}
	}
	if kind == config.HostedWebFetch {
		e.usage.ServerToolUse.WebFetchRequests++
		return
	}
	e.usage.ServerToolUse.WebSearchRequests++
}

// hostedResult is the result block of a finished hosted call: the pages
// its tool's result lists (see package hosted), or the kind's error.
func hostedResult(ev *loop.Event) hostedResultBlock {
	r := toolhost.Result{CallID: ev.CallID, Name: ev.Name, Status: ev.Status, Err: ev.Error}
	if ev.Full != nil {
		r = *ev.Full
	}
	fetch := ev.Hosted == config.HostedWebFetch
	b := hostedResultBlock{Type: "web_search_tool_result", ToolUseID: ServerToolUseID(ev.CallID)}
	errType := "web_search_tool_result_error"
	if fetch {
		b.Type, errType = "web_fetch_tool_result", "web_fetch_tool_error"
	}
	if r.Err != nil || (r.Status != "" && r.Status != toolhost.StatusOK) {
		b.Content = hostedError{Type: errType, ErrorCode: hostedErrorCode(r)}
		return b
	}
	pages := hosted.Results(r.Content, ev.RunBy)
	if fetch {
		var a struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(r.Arguments, &a)
		text, title := hosted.Text(r.Content), ""
		if len(pages) == 1 && pages[0].Text == text {
			title = pages[0].Title
		}
		b.Content = webFetchResult{Type: "web_fetch_result", URL: a.URL,
			Content: webDocument{Type: "document", Title: title, Source: docSource{Type: "text", MediaType: "text/plain", Data: text}}}
		return b
	}
	list := make([]webSearchResult, 0, len(pages))
	for _, p := range pages {
		list = append(list, webSearchResult{Type: "web_search_result", URL: p.URL, Title: p.Title})
	}
	b.Content = list
	return b
}

// hostedErrorCode is Anthropic's error_code for a failed hosted call:
// past max_uses, a call refused for its input, or, for every other
// failure (the tool down, denied, timed out), unavailable.
func hostedErrorCode(r toolhost.Result) string {
	if r.Err == nil {
		return "unavailable"
	}
	switch r.Err.Code {
	case hosted.CodeMaxUses:
		return "max_uses_exceeded"
	case toolhost.CodeMissingParameter, toolhost.CodeInvalidParameter:
		return "invalid_tool_input"
	}
	return "unavailable"
}
