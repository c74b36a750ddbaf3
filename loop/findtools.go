package loop

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/toolsearch"
	"github.com/toolstream/toolstream/toolhost"
)

// FindToolsName is the tool a turn with more server tools than
// loop.tool_search_threshold offers in their place (docs/tool-calls.md#many-tools).
const FindToolsName = "find_tools"

// Limits of one find_tools call: a few tools by default, never so many
// that the result is the long prompt the search is there to avoid.
const (
	findToolsDefault = 5
	findToolsMax     = 20
)

// toolSearch is a turn's tool search: which of its server tools the model
// is shown, and the index find_tools searches. A small model offered every
// schema of a large toolbox reads thousands of tokens before the user's
// question and picks worse; shown a few tools and a way to find the rest,
// it loads what it needs.
type toolSearch struct {
	tools []toolhost.Tool
	index *toolsearch.Index
	// shown holds the names the model may call: the request's pinned
	// tools, those called earlier in the conversation, and those
	// find_tools found, in this turn or an earlier one.
	shown map[string]bool
	// initial is what the turn's first round teaches: find_tools, then
	// the tools shown from the start in the turn's order. It never
	// changes within the turn: the text-mode prompt is made of it, and
	// native tools only grow after it.
	initial []toolhost.Tool
	// found are the tools find_tools found, in the order it found them:
	// those the conversation found before (taught in its history), then
	// this turn's (taught after the results of the round that found
	// them: see teachNew).
	found []toolhost.Tool
	// before counts the found that an earlier turn found.
	before int
	// offered caches initial and found, rebuilt when found grows.
	offered []toolhost.Tool
	stale   bool
}

// startSearch turns the tool search on for a turn that offers more server
// tools than the threshold, unless every one of them is to be shown anyway.
// Called once the history is stitched: tools called earlier are in it.
func (tr *turnRun) startSearch() {
	t := tr.t
	if tr.plain || tr.search != nil || t.Loop.ToolSearchThreshold <= 0 || len(t.Tools) <= t.Loop.ToolSearchThreshold {
		return
	}
	if tr.known[FindToolsName] || tr.clientTools[FindToolsName] {
		// A tool of that name already: the model could not tell them apart.
		tr.r.log().Warn("tool search off: a tool is named "+FindToolsName, "tools", len(t.Tools))
		return
	}
	ts := &toolSearch{tools: t.Tools, shown: map[string]bool{}, stale: true}
	for _, n := range t.AlwaysShown {
		ts.shown[n] = true
	}
	for n := range calledBefore(tr.base, tr.known) {
		ts.shown[n] = true
	}
	if n := forcedTool(t.Request.Body); n != "" {
		// A tool_choice naming a tool that is not in tools is refused
		// by the upstream; the client wants that one called anyway.
		ts.shown[n] = true
	}
	// Tools an earlier turn found stay taught where they were: in its
	// history, or at the end of its tools. Moved into this turn's
	// prompt, they would change the bytes every later round starts with.
	before := ts.foundBefore(tr.base, tr.known)
	hidden := 0
	ts.initial = []toolhost.Tool{findToolsTool(len(t.Tools))}
	for _, tool := range t.Tools {
		switch {
		case !ts.shown[tool.Name] && !before[tool.Name]:
			hidden++
		case !before[tool.Name]:
			ts.initial = append(ts.initial, tool)
		}
	}
	if hidden == 0 && len(before) == 0 {
		return
	}
	for _, tool := range ts.found {
		ts.shown[tool.Name] = true
	}
	ts.before = len(ts.found)
	docs := make([]toolsearch.Doc, len(t.Tools))
	for i, tool := range t.Tools {
		docs[i] = toolsearch.Doc{Name: tool.Name, Description: tool.Description, Parameters: tool.Parameters}
	}
	ts.index = toolsearch.New(docs)
	tr.search = ts
	tr.known[FindToolsName] = true
}

// offered are the server tools the model is shown this round: find_tools
// first (text mode's worked example is a call of the first tool, and a
// search is what the model should learn to write), then the tools shown
// from the start in the turn's order, then those found, in the order
// found. Without a search, every tool.
func (tr *turnRun) offered() []toolhost.Tool {
	ts := tr.search
	if ts == nil {
		return tr.t.Tools
	}
	if ts.stale {
		ts.offered = append(ts.initial[:len(ts.initial):len(ts.initial)], ts.found...)
		ts.stale = false
	}
	return ts.offered
}

// prompted are the server tools a turn's text-mode prompt teaches.
// Tools found later are taught after the results that found them (see
// teachNew).
func (tr *turnRun) prompted() []toolhost.Tool {
	if tr.search == nil {
		return tr.t.Tools
	}
	return tr.search.initial
}

// findToolsTool is find_tools as the model is taught it. Its text depends
// only on the size of the toolbox, so it stays the same round after round
// and upstream prompt caches keep their prefix.
func findToolsTool(total int) toolhost.Tool {
	return toolhost.Tool{
		Name: FindToolsName,
		Description: fmt.Sprintf("Search the %d tools you can use; only a few are listed here. "+
			"Describe what you need in a few words; the best matching tools come back with their parameters, "+
			"and you can call them from then on. Search before saying you cannot do something.", total),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"What you want to do, in a few words, e.g. \"send an email\"."},` +
			`"limit":{"type":"integer","description":"How many tools to return (default 5, at most 20).","minimum":1,"maximum":20}},` +
			`"required":["query"]}`),
	}
}

// isSearch says name is the turn's find_tools.
func (tr *turnRun) isSearch(name string) bool {
	return tr.search != nil && name == FindToolsName
}

// hidden says name is a server tool of the turn the model has not found
// yet: it cannot call it before find_tools gave its parameters.
func (tr *turnRun) hidden(name string) bool {
	return tr.search != nil && tr.known[name] && name != FindToolsName && !tr.search.shown[name]
}

// notFoundYet is what the model reads when it calls a tool it has not
// found: the tool exists, and how to get it.
func notFoundYet(name string) string {
	return fmt.Sprintf("tool %q exists but is not loaded yet: call %s first (e.g. with the query %q) to get its parameters, then call it", name, FindToolsName, strings.ReplaceAll(name, "_", " "))
}

// searchNotFound completes TOOL_NOT_FOUND for a name no tool has, when
// only some tools are shown: find_tools knows the others.
func (tr *turnRun) searchNotFound(name string) string {
	var names []string
	for _, tool := range tr.offered() {
		names = append(names, tool.Name)
	}
	return toolhost.NotFoundMessage(name, names) + fmt.Sprintf("; %s searches all %d tools by what you need", FindToolsName, len(tr.search.tools))
}

// findTools runs a find_tools call here, not through the executor: it
// reads the turn's own tool list, has no side effect, and is no call of a
// tool the audit log answers for. The tools found are callable at once
// and taught from the next round on.
func (tr *turnRun) findTools(call toolhost.Call) toolhost.Result {
	ts := tr.search
	query, limit, msg := searchArgs(call.Arguments)
	if msg != "" {
		code := toolhost.CodeInvalidParameter
		if query == "" && strings.HasPrefix(msg, "missing") {
			code = toolhost.CodeMissingParameter
		}
		return toolhost.ErrorResult(call, code, msg)
	}
	type match struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}
	out := struct {
		Tools []match `json:"tools"`
		Note  string  `json:"note"`
	}{Tools: []match{}}
	for _, i := range ts.index.Search(query, limit) {
		tool := ts.tools[i]
		params := tool.Parameters
		if !json.Valid(params) {
			params = nil
		}
		out.Tools = append(out.Tools, match{Name: tool.Name, Description: tool.Description, Parameters: params})
		if !ts.shown[tool.Name] {
			ts.shown[tool.Name], ts.stale = true, true
			ts.found = append(ts.found, tool)
		}
	}
	if len(out.Tools) == 0 {
		out.Note = "No tool matched. Search again with other words (what the tool would do, not how), or answer without a tool."
	} else {
		out.Note = "These tools can be called now, with the parameters shown."
	}
	b, _ := json.Marshal(out) // strings and valid JSON only
	return toolhost.Result{CallID: call.ID, Name: call.Name, Arguments: call.Arguments, Content: string(b), IsJSON: true, Status: toolhost.StatusOK}
}

// searchArgs reads find_tools' arguments. Text formats write every value
// as a string, so a limit of "3" is 3; a limit out of range is brought
// into it rather than refused: the model asked for tools, not for an
// error.
func searchArgs(args []byte) (query string, limit int, msg string) {
	var p fastjson.Parser
	v, err := p.ParseBytes(args)
	if err != nil || v.Type() != fastjson.TypeObject {
		return "", 0, `find_tools takes a JSON object: {"query": "…", "limit": 5}`
	}
	q := v.Get("query")
	if q == nil || q.Type() != fastjson.TypeString || strings.TrimSpace(string(q.GetStringBytes())) == "" {
		return "", 0, `missing parameter "query": say in a few words what you want to do`
	}
	query, limit = string(q.GetStringBytes()), findToolsDefault
	if l := v.Get("limit"); l != nil && l.Type() != fastjson.TypeNull {
		switch l.Type() {
		case fastjson.TypeNumber:
			limit = int(l.GetFloat64())
		case fastjson.TypeString:
			n, err := strconv.Atoi(strings.TrimSpace(string(l.GetStringBytes())))
			if err != nil {
				return query, 0, `parameter "limit" must be an integer`
			}
			limit = n
		default:
			return query, 0, `parameter "limit" must be an integer`
		}
	}
	limit = max(1, min(limit, findToolsMax))
	return query, limit, ""
}

// calledBefore finds the server tools the conversation in body already
// called, so that they stay shown: a model that used a tool two turns ago
// calls it again without searching. It reads the assistant messages'
// tool_calls, a stored text-mode turn's "tool" messages (their name), and
// the assistant's text, where a text-mode call is written in the taught
// syntax; a name is taken there only as a whole word. A name merely
// mentioned is shown too: a little more prompt, never a call refused.
func calledBefore(body []byte, known map[string]bool) map[string]bool {
	out := map[string]bool{}
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		return out
	}
	for _, m := range v.GetArray("messages") {
		switch string(m.GetStringBytes("role")) {
		case "assistant":
			for _, c := range m.GetArray("tool_calls") {
				if n := string(c.GetStringBytes("function", "name")); known[n] {
					out[n] = true
				}
			}
			c := m.Get("content")
			switch {
			case c == nil:
			case c.Type() == fastjson.TypeString:
				namesIn(string(c.GetStringBytes()), known, out)
			case c.Type() == fastjson.TypeArray:
				for _, part := range c.GetArray() {
					namesIn(string(part.GetStringBytes("text")), known, out)
				}
			}
		case "tool":
			if n := string(m.GetStringBytes("name")); known[n] {
				out[n] = true
			}
		}
	}
	return out
}

// forcedTool is the function a request's tool_choice names, if any.
func forcedTool(body []byte) string {
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		return ""
	}
	return string(v.GetStringBytes("tool_choice", "function", "name"))
}

// namesIn adds to out the known names that occur in text as whole words.
func namesIn(text string, known map[string]bool, out map[string]bool) {
	if text == "" {
		return
	}
	for n := range known {
		if out[n] {
			continue
		}
		for i := 0; ; {
			j := strings.Index(text[i:], n)
			if j < 0 {
				break
			}
			j += i
			end := j + len(n)
			if (j == 0 || !nameByte(text[j-1])) && (end == len(text) || !nameByte(text[end])) {
				out[n] = true
				break
			}
			i = j + 1
		}
	}
}

// nameByte says c may be part of a tool name ([a-zA-Z0-9_-]).
func nameByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
