package messages

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/toolsearch"
	"github.com/toolstream/toolstream/toolhost"
)

// searchLimit is how many tools one search returns: Anthropic's returns
// a few, and a few is what a model reads well.
const searchLimit = 5

// maxPattern is the longest regex query taken, as Anthropic's limit.
const maxPattern = 200

// toolSearch runs Anthropic's tool search tool for one turn, here rather
// than through the executor: it reads the request's own deferred tools,
// has no side effect, and is no call the audit log answers for (as
// find_tools). It is the turn's Executor, handing every other call on to
// the proxy's, and says which deferred tools a round offers
// (loop.Turn.ClientShown). The bm25 kind ranks with find_tools' index
// (loop/toolsearch); the regex kind matches the same text.
type toolSearch struct {
	tool  SearchTool
	next  loop.Executor
	docs  []toolsearch.Doc
	index *toolsearch.Index
	// hidden are the deferred tools not yet found.
	mu      sync.Mutex
	hidden  map[string]bool
	results map[string]searchResult // by call id, for the encoder
}

// searchResult is what one search call found, or why it failed.
type searchResult struct {
	names []string
	err   string // Anthropic's error_code: invalid_tool_input
}

// newToolSearch makes the search of r over its deferred tools, which
// the chat request holds (Request.addDeferred); next runs the other calls.
func newToolSearch(r *Request, next loop.Executor) *toolSearch {
	s := &toolSearch{tool: *r.Search, next: next, hidden: map[string]bool{}, results: map[string]searchResult{}}
	for _, t := range r.deferred {
		s.hidden[t.Function.Name] = true
		s.docs = append(s.docs, toolsearch.Doc{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	s.index = toolsearch.New(s.docs)
	return s
}

// def is the search tool as the model is taught it.
func (s *toolSearch) def() toolhost.Tool {
	what := `Words describing what you need, e.g. "send an email".`
	desc := "Search the %d tools that are not loaded yet by what they do; the tools found can be called from then on."
	if s.tool.Kind == "regex" {
		what = `A regular expression matched against tool names, descriptions and parameter names, e.g. "(?i)mail".`
		desc = "Search the %d tools that are not loaded yet with a regular expression; the tools found can be called from then on."
	}
	q, _ := json.Marshal(what)
	return toolhost.Tool{
		Name:        s.tool.Name,
		Description: fmt.Sprintf(desc, len(s.docs)),
		Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":` + string(q) + `}},"required":["query"]}`),
	}
}

// shown says whether a round offers the client tool name: every tool but
// the deferred ones not yet found.
func (s *toolSearch) shown(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.hidden[name]
}

// Execute runs a search call, and hands any other call to the proxy's
// executor.
func (s *toolSearch) Execute(ctx context.Context, call toolhost.Call) (toolhost.Result, error) {
	if call.Name != s.tool.Name {
		if s.next == nil {
			return toolhost.ErrorResult(call, toolhost.CodeToolNotFound, fmt.Sprintf("no tool named %q", call.Name)), nil
		}
		return s.next.Execute(ctx, call)
	}
	found, msg := s.search(call.Arguments)
	s.mu.Lock()
	defer s.mu.Unlock()
	if msg != "" {
		s.results[call.ID] = searchResult{err: "invalid_tool_input"}
		return toolhost.ErrorResult(call, toolhost.CodeInvalidParameter, msg), nil
	}
	names := make([]string, 0, len(found))
	for _, i := range found {
		names = append(names, s.docs[i].Name)
		delete(s.hidden, s.docs[i].Name)
	}
	s.results[call.ID] = searchResult{names: names}
	b, _ := json.Marshal(struct {
		Tools []string `json:"tools"`
		Note  string   `json:"note"`
	}{names, searchNote(len(names))})
	return toolhost.Result{CallID: call.ID, Name: call.Name, Arguments: call.Arguments, Content: string(b), IsJSON: true, Status: toolhost.StatusOK}, nil
}

func searchNote(n int) string {
	if n == 0 {
		return "No tool matched. Search again with other words, or answer without a tool."
	}
	return "These tools are loaded: call them now."
}

// search reads the query and runs it: the positions of the tools found,
// or what is wrong with the call.
func (s *toolSearch) search(args []byte) ([]int, string) {
	var p fastjson.Parser
	v, err := p.ParseBytes(args)
	if err != nil || v.Type() != fastjson.TypeObject {
		return nil, `takes a JSON object: {"query": "…"}`
	}
	q := string(v.GetStringBytes("query"))
	if q == "" {
		q = string(v.GetStringBytes("pattern")) // as some clients name it
	}
	if q == "" {
		return nil, `missing parameter "query"`
	}
	if s.tool.Kind == "bm25" {
		return s.index.Search(q, searchLimit), ""
	}
	if len(q) > maxPattern {
		return nil, fmt.Sprintf("the pattern is longer than %d characters", maxPattern)
	}
	re, err := regexp.Compile(q)
	if err != nil {
		return nil, "not a regular expression: " + err.Error()
	}
	return toolsearch.Match(s.docs, re, searchLimit), ""
}

// result is what search call id found, and whether it was a search.
func (s *toolSearch) result(callID string) (searchResult, bool) {
	if s == nil {
		return searchResult{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[callID]
	return r, ok
}
