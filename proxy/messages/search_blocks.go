package messages

import (
	"encoding/json"

	"github.com/toolstream/toolstream/loop"
)

// The blocks of Anthropic's tool search, as Anthropic streams them: the
// call (server_tool_use) then its result (tool_search_tool_result), whose
// content lists a tool_reference per tool found, or says why the search
// failed.
type (
	searchUseBlock struct {
		Type  string          `json:"type"` // "server_tool_use"
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	searchResultBlock struct {
		Type      string `json:"type"` // "tool_search_tool_result"
		ToolUseID string `json:"tool_use_id"`
		Content   any    `json:"content"`
	}
	searchFound struct {
		Type           string          `json:"type"` // "tool_search_tool_search_result"
		ToolReferences []toolReference `json:"tool_references"`
	}
	toolReference struct {
		Type     string `json:"type"` // "tool_reference"
		ToolName string `json:"tool_name"`
	}
	searchError struct {
		Type      string `json:"type"` // "tool_search_tool_result_error"
		ErrorCode string `json:"error_code"`
	}
)

// isSearch says name is the turn's tool search tool.
func (e *Encoder) isSearch(name string) bool {
	return e.opts.search != nil && name == e.opts.search.tool.Name
}

// searchEvent sends a tool search call's blocks: its server_tool_use when
// it starts, its tool_search_tool_result when it finishes (after its
// server_tool_use, if that has not gone out).
func (e *Encoder) searchEvent(ev *loop.Event) error {
	if err := e.settle(); err != nil {
		return err
	}
	if !e.shown[ev.CallID] {
		args := ev.Arguments
		if args == nil && ev.Full != nil {
			args = ev.Full.Arguments
		}
		if e.shown == nil {
			e.shown = map[string]bool{}
		}
		e.shown[ev.CallID] = true
		if err := e.whole(searchUseBlock{Type: "server_tool_use", ID: serverToolUsePrefix + ev.CallID, Name: ev.Name, Input: inputOf(args)}); err != nil {
			return err
		}
	}
	if ev.Event != "tool.finished" {
		return nil
	}
	var content any
	res, _ := e.opts.search.result(ev.CallID)
	if res.err != "" || ev.Status != "ok" {
		code := res.err
		if code == "" {
			code = "unavailable"
		}
		content = searchError{Type: "tool_search_tool_result_error", ErrorCode: code}
	} else {
		found := searchFound{Type: "tool_search_tool_search_result", ToolReferences: []toolReference{}}
		for _, n := range res.names {
			found.ToolReferences = append(found.ToolReferences, toolReference{Type: "tool_reference", ToolName: n})
		}
		content = found
	}
	return e.whole(searchResultBlock{Type: "tool_search_tool_result", ToolUseID: serverToolUsePrefix + ev.CallID, Content: content})
}
