package agents_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// shellOutput is what the agent's shell call prints: in capitals, which
// only the command's run makes, so it never appears in the call itself.
// (Not printf or $((…)): Qwen Code's shell tool prints nothing for a
// printf format, and refuses command substitution.)
const (
	shellCommand = `echo agent-shell-ok | tr a-z A-Z`
	shellOutput  = "AGENT-SHELL-OK"
)

// Model names toolstream.yaml routes to the native and text upstreams.
const (
	nativeModel = "native-model"
	textModel   = "text-model"
)

// script is the scripted model of one agent run. It reads what it is
// sent, as a model would, and plays the three rounds of the turn: it calls
// the agent's shell tool; once the shell's output is in, it calls the
// server tool get_token; once the token is in, it answers with it.
// Requests that do not offer the shell tool (titles, summaries, quota
// checks) get a short plain answer.
type script struct {
	// shell is the agent's shell tool as the model sees it, and args the
	// JSON arguments of a call running shellCommand.
	shell, args string
	token       string
	n           atomic.Int32
}

// chatRequest is what the script reads of a chat-completions request.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *script) round(req upstreamtest.Request) upstreamtest.Round {
	var r chatRequest
	json.Unmarshal(req.Body, &r)
	id := fmt.Sprintf("chatcmpl-agents-%d", s.n.Add(1))
	text := r.Model == textModel
	var system, rest strings.Builder
	ran := false
	for _, m := range r.Messages {
		ran = ran || m.Role == "tool"
		if m.Role == "system" || m.Role == "developer" {
			system.WriteString(contentText(m.Content))
			continue
		}
		rest.WriteString(contentText(m.Content))
		rest.WriteByte('\n')
	}
	seen := rest.String()
	switch {
	case !s.offered(r, system.String()):
		return answer(id, r.Model, "OK.")
	case strings.Contains(seen, s.token):
		return answer(id, r.Model, "The build token is "+s.token+".")
	case strings.Contains(seen, shellOutput):
		return call(id, r.Model, text, "call_token_1", "get_token", `{}`)
	case ran || strings.Contains(seen, "<tool_response>"):
		// The shell ran but its output is not there: say so, rather
		// than call it again and again.
		return answer(id, r.Model, "The shell command did not print its output.")
	default:
		return call(id, r.Model, text, "call_shell_1", s.shell, s.args)
	}
}

// offered reports whether the request offers the agent's shell tool: in
// its tools natively, or taught in the system prompt in text mode.
func (s *script) offered(r chatRequest, system string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == s.shell {
			return true
		}
	}
	return strings.Contains(system, "\n## "+s.shell+"\n")
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
