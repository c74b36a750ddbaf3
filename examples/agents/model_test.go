package agents_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// shellOutput is what each agent's shell call prints, running
// `echo agent-shell-ok | tr a-z A-Z`: in capitals, which only the
// command's run makes, so it never appears in the call itself. (Not
// printf or $((…)): Qwen Code's shell tool prints nothing for a printf
// format, and refuses command substitution.)
const shellOutput = "AGENT-SHELL-OK"

// Model names toolstream.yaml routes to the native and text upstreams.
const (
	nativeModel = "native-model"
	textModel   = "text-model"
)

// step is one tool call the scripted model makes.
type step struct {
	// tool picks the tool to call among those offered (as the model sees
	// them), or "" when none fits.
	tool func(offered []string) string
	// args are the call's JSON arguments.
	args string
	// expect must be in the call's result, or the model stops and says
	// the step failed.
	expect string
}

// named picks the tool called exactly name.
func named(name string) func([]string) string {
	return func(offered []string) string {
		for _, o := range offered {
			if o == name {
				return name
			}
		}
		return ""
	}
}

// script is the scripted model of one agent run. It reads what it is
// sent, as a model would: the tools it is offered (natively, or taught in
// the system prompt in text mode) and the results so far. It follows the
// first of its plans one of whose tools is offered, making the plan's calls
// one a round, in order — a native tool_calls delta, or a hermes block in
// its text in text mode — and once all results are in, answers with the
// last one. Requests that offer none of its plans' tools (titles,
// summaries, quota checks) get a short plain answer.
type script struct {
	plans [][]step
	n     atomic.Int32
}

// chatRequest is what the script reads of a chat-completions request.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// taughtTool finds the tools a text-mode prompt teaches: one "## NAME"
// heading each.
var taughtTool = regexp.MustCompile(`(?m)^## (\S+)$`)

func (s *script) round(req upstreamtest.Request) upstreamtest.Round {
	var r chatRequest
	json.Unmarshal(req.Body, &r)
	id := fmt.Sprintf("chatcmpl-agents-%d", s.n.Add(1))
	var system string
	var results []string
	for _, m := range r.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			system += text
		case "tool":
			results = append(results, text)
		case "user":
			results = append(results, responses(text)...)
		}
	}
	text, offered := r.offered(system)
	var steps []step
	for _, p := range s.plans {
		for _, st := range p {
			if st.tool(offered) != "" {
				steps = p
				break
			}
		}
		if steps != nil {
			break
		}
	}
	if steps == nil {
		return answer(id, r.Model, "OK.")
	}
	for i, st := range steps {
		if i < len(results) {
			if !strings.Contains(results[i], st.expect) {
				return answer(id, r.Model, fmt.Sprintf("Step %d failed: its result has no %q: %s", i+1, st.expect, results[i]))
			}
			continue
		}
		name := st.tool(offered)
		if name == "" {
			return answer(id, r.Model, fmt.Sprintf("Step %d failed: no tool fits among %v", i+1, offered))
		}
		return call(id, r.Model, text, fmt.Sprintf("call_%d", i+1), name, st.args)
	}
	return answer(id, r.Model, "Done. The last result: "+results[len(steps)-1])
}

// offered returns whether the request is in text mode, and the tools it
// offers: its tools, or in text mode those its system prompt teaches.
func (r chatRequest) offered(system string) (text bool, names []string) {
	text = len(r.Tools) == 0 && strings.Contains(system, "<tool_call>")
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	if text {
		for _, m := range taughtTool.FindAllStringSubmatch(system, -1) {
			names = append(names, m[1])
		}
	}
	return text, names
}

// offeredTools are the tools a chat request's body offers the model.
func offeredTools(body []byte) []string {
	var r chatRequest
	json.Unmarshal(body, &r)
	var system string
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system += contentText(m.Content)
		}
	}
	_, names := r.offered(system)
	return names
}

// responses are the <tool_response> blocks of a text-mode results
// message, each the content of its result.
func responses(text string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(text, "<tool_response>")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "</tool_response>")
		var r struct {
			Content json.RawMessage `json:"content"`
		}
		json.Unmarshal([]byte(strings.TrimSpace(block)), &r)
		var s string
		if json.Unmarshal(r.Content, &s) != nil {
			s = string(r.Content)
		}
		out = append(out, s)
		text = after
	}
}

// answer is a plain text answer.
func answer(id, model, text string) upstreamtest.Round {
	ev := upstreamtest.Text(id, model, text)
	return upstreamtest.Round{Events: append(ev, upstreamtest.Usage(id, model, 100, 10))}
}

// call is one tool call: a native tool_calls delta, or in text mode a
// hermes block in the content, as a model served without a tool parser
// writes it.
func call(id, model string, text bool, callID, name, args string) upstreamtest.Round {
	if text {
		block := fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", name, args)
		return answer(id, model, block)
	}
	fn, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	delta := fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":%q,"type":"function","function":%s}]}`, callID, fn)
	ev := []string{
		upstreamtest.Chunk(id, model, delta, ""),
		upstreamtest.Chunk(id, model, `{}`, "tool_calls"),
		upstreamtest.Usage(id, model, 100, 10),
	}
	return upstreamtest.Round{Events: ev}
}

// contentText is a message's text: the string, or its text parts joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
