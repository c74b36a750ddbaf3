package loop

import (
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/textmode"
)

// foundBefore finds the tools that find_tools found in the conversation
// in body, before this turn: each is appended to ts.found, in the order
// found, and returned as a set. A text-mode turn taught them in a
// textmode.Found section after its results; a native turn's find_tools
// results (role "tool" messages answering a find_tools call) name them,
// and its tools listed them after the others, in that order.
func (ts *toolSearch) foundBefore(body []byte, known map[string]bool) map[string]bool {
	out := map[string]bool{}
	var p fastjson.Parser
	v, err := p.ParseBytes(body)
	if err != nil {
		return out
	}
	byName := make(map[string]int, len(ts.tools))
	for i, tool := range ts.tools {
		byName[tool.Name] = i
	}
	add := func(name string) {
		if i, ok := byName[name]; ok && known[name] && !out[name] {
			out[name] = true
			ts.found = append(ts.found, ts.tools[i])
		}
	}
	searches := map[string]bool{} // call ids of find_tools calls
	for _, m := range v.GetArray("messages") {
		switch string(m.GetStringBytes("role")) {
		case "assistant":
			for _, c := range m.GetArray("tool_calls") {
				if string(c.GetStringBytes("function", "name")) == FindToolsName {
					searches[string(c.GetStringBytes("id"))] = true
				}
			}
		case "tool":
			if searches[string(m.GetStringBytes("tool_call_id"))] {
				for _, n := range searchResultNames(m.GetStringBytes("content")) {
					add(n)
				}
			}
		default:
			for _, n := range textmode.FoundNames(string(m.GetStringBytes("content"))) {
				add(n)
			}
		}
	}
	return out
}

// searchResultNames are the tools a find_tools result lists.
func searchResultNames(content []byte) []string {
	var p fastjson.Parser
	v, err := p.ParseBytes(content)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range v.GetArray("tools") {
		out = append(out, string(t.GetStringBytes("name")))
	}
	return out
}
