// Package demo is `toolstream demo`: a scripted model and the example tool
// servers on loopback, the proxy in front of them, one conversation sent
// through it, and what the client sees printed as it arrives.
package demo

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// modelName is what the scripted model calls itself.
const modelName = "demo-model"

// script is the scripted model. It knows no tools natively: like a small
// local model in text mode, it writes its calls as hermes <tool_call>
// blocks, and only for tools the proxy taught it in the system prompt.
// It reads the user's prompt for what to do (intent.go), writes the calls
// that does, and once their results are in, answers from them (plan.go).
// Its text comes in token-sized chunks, so markers arrive split across
// chunks as they do from real servers.
func script(req upstreamtest.Request) upstreamtest.Round {
	t := readTurn(req.Body, time.Now())
	text := render(reply(t))
	id := "chatcmpl-demo" + fmt.Sprint(time.Now().UnixNano()%1e6)
	events := upstreamtest.Text(id, modelName, tokens(text)...)
	events = append(events, upstreamtest.Usage(id, modelName, 180+t.size/4, len(text)/4))
	return upstreamtest.Round{Events: events}
}

// turn is what the model reads in a request.
type turn struct {
	prompt string
	// rounds are the results of the calls made for prompt so far, one
	// results message a round, oldest first; earlier are the results
	// from before it in the conversation (a card's id, say).
	rounds  [][]result
	earlier []result
	system  string
	tools   []string // the names of the request's tools
	now     time.Time
	size    int // bytes of the last message, for the usage count
}

// taught reports whether the proxy taught the model a tool, in the
// system prompt (text mode) or in the request's tools (native and auto
// modes, where the proxy still reads calls written as text): the model
// calls only those, as the proxy runs only those.
func (t *turn) taught(tool string) bool {
	return strings.Contains(t.system, tool) || slices.Contains(t.tools, tool)
}

// result is one <tool_response> the proxy fed back: the hermes frame's
// object.
type result struct {
	Name    string          `json:"name"`
	Content json.RawMessage `json:"content"`
	Error   *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readTurn reads the chat request's messages: the system prompt, the
// user's last prompt, and the tool results after it.
func readTurn(body []byte, now time.Time) turn {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string
				Function struct{ Name string }
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	t := turn{now: now}
	for _, tool := range req.Tools {
		t.tools = append(t.tools, tool.Function.Name)
	}
	names := map[string]string{} // call id → tool, for native results
	for i, m := range req.Messages {
		text := contentText(m.Content)
		if i == len(req.Messages)-1 {
			t.size = len(text)
		}
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Function.Name
		}
		switch {
		case m.Role == "system" || m.Role == "developer":
			t.system += text
		case m.Role == "tool":
			// A native round's results: one "tool" message a call, in a
			// run after the assistant's.
			r := nativeResult(names[m.ToolCallID], text)
			if i > 0 && req.Messages[i-1].Role == "tool" && len(t.rounds) > 0 {
				t.rounds[len(t.rounds)-1] = append(t.rounds[len(t.rounds)-1], r)
			} else {
				t.rounds = append(t.rounds, []result{r})
			}
		case m.Role != "user":
		case strings.Contains(text, "<tool_response>"):
			t.rounds = append(t.rounds, results(text))
		default:
			for _, r := range t.rounds {
				t.earlier = append(t.earlier, r...)
			}
			t.prompt, t.rounds = withoutReminders(text), nil
		}
	}
	return t
}

// withoutReminders is a prompt without the <system-reminder> blocks
// coding agents put in the user's message (Claude Code adds its
// instructions there): the model reads what the user asked.
func withoutReminders(text string) string {
	for {
		start := strings.Index(text, "<system-reminder>")
		if start < 0 {
			return strings.TrimSpace(text)
		}
		n := strings.Index(text[start:], "</system-reminder>")
		if n < 0 {
			return strings.TrimSpace(text[:start])
		}
		text = text[:start] + text[start+n+len("</system-reminder>"):]
	}
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

// nativeResult is a "tool" message's content as a result: JSON as it
// is, {"error": {…}} as the failure it stands for, other text as a string.
func nativeResult(name, text string) result {
	r := result{Name: name}
	if json.Valid([]byte(text)) {
		r.Content = json.RawMessage(text)
		var failed result
		if json.Unmarshal(r.Content, &failed) == nil && failed.Error != nil {
			r.Error, r.Content = failed.Error, nil
		}
		return r
	}
	r.Content, _ = json.Marshal(text)
	return r
}

// results reads the <tool_response> blocks of a results message.
func results(text string) []result {
	var out []result
	for {
		_, rest, ok := strings.Cut(text, "<tool_response>")
		if !ok {
			return out
		}
		block, after, _ := strings.Cut(rest, "</tool_response>")
		var r result
		if json.Unmarshal([]byte(strings.TrimSpace(block)), &r) == nil {
			r.Content = withoutEditNote(r.Content)
			out = append(out, r)
		}
		text = after
	}
}

// withoutEditNote is a result without the note toolstream puts before
// the result of a call a person approved with other arguments ("A person
// approving this call changed its arguments to …\n\n{…}"): the scripted
// model reads the result itself, as a real one would past the note.
func withoutEditNote(content json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(content, &s) != nil || !strings.HasPrefix(s, "A person approving this call changed its arguments") {
		return content
	}
	if _, rest, ok := strings.Cut(s, "\n\n"); ok && json.Valid([]byte(rest)) {
		return json.RawMessage(rest)
	}
	return content
}

// call is one tool call the model writes; Args is its JSON.
type call struct {
	Name string
	Args string
}

// newCall marshals args, a struct so that the keys keep their order.
func newCall(name string, args any) call {
	a, _ := json.Marshal(args)
	return call{name, string(a)}
}

// step is what the model writes in one round: prose, then its calls; or,
// when then is set, each call followed by more words on the same line (an
// avatar's gestures go with the sentence). Without calls, say is the
// answer.
type step struct {
	say   string
	calls []call
	then  []string
}

func render(s step) string {
	var b strings.Builder
	b.WriteString(s.say)
	if len(s.then) > 0 {
		for i, c := range s.calls {
			b.WriteString(strings.TrimSuffix(toolCall(c), "\n"))
			b.WriteString(s.then[i])
		}
		return b.String()
	}
	if len(s.calls) > 0 {
		b.WriteString("\n")
	}
	for _, c := range s.calls {
		b.WriteString(toolCall(c))
	}
	return b.String()
}

// toolCall writes one call the hermes way.
func toolCall(c call) string {
	return fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>\n", c.Name, c.Args)
}

// tokens cuts text into pieces of 1 to 6 bytes, rune-aligned, the way a
// model streams tokens; the pattern is fixed so every run looks the same.
func tokens(text string) []string {
	var out []string
	sizes := []int{3, 5, 1, 6, 2, 4}
	for i := 0; text != ""; i++ {
		n := min(sizes[i%len(sizes)], len(text))
		for n < len(text) && !isRuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
