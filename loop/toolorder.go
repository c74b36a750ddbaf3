package loop

import "github.com/valyala/fastjson"

// inSentOrder orders a native round's tools as the rounds before sent
// them: those sent before first, in their order, then the new ones (a
// client tool shown since, a tool find_tools found) in the order given.
// An upstream's prompt cache reads the tools as part of the prompt's
// start: a tool inserted among them would make everything after it a
// miss.
func (tr *turnRun) inSentOrder(tools []*fastjson.Value) []*fastjson.Value {
	names := make([]string, len(tools))
	at := make(map[string]int, len(tools))
	for i, t := range tools {
		names[i] = toolKey(t)
		at[names[i]] = i
	}
	if tr.sentTools != nil {
		out := make([]*fastjson.Value, 0, len(tools))
		used := make([]bool, len(tools))
		for _, n := range tr.sentTools {
			if i, ok := at[n]; ok && !used[i] {
				out, used[i] = append(out, tools[i]), true
			}
		}
		for i, t := range tools {
			if !used[i] {
				out = append(out, t)
			}
		}
		tools = out
		for i, t := range tools {
			names[i] = toolKey(t)
		}
	}
	tr.sentTools = names
	return tools
}

// toolKey names a tool of a request's tools: a function's name, another
// kind's own name, or its JSON when it has none.
func toolKey(t *fastjson.Value) string {
	if n := t.GetStringBytes("function", "name"); n != nil {
		return string(n)
	}
	if n := t.GetStringBytes("name"); n != nil {
		return string(n)
	}
	return string(t.MarshalTo(nil))
}
