package chat_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/looptest"
	"github.com/toolstream/toolstream/proxy/chat"
	"github.com/toolstream/toolstream/toolhost"
)

// The tests here run whole turns into chat's Outs: what a chat client
// reads of a turn is chat's to answer for, and loop's own tests import
// nothing above loop.

// scripted is an in-memory upstream: round i yields rounds[i].
type scripted struct {
	rounds [][]string
	n      int
}

func (s *scripted) Open(context.Context, []byte) (loop.Stream, error) {
	r := s.rounds[s.n%len(s.rounds)]
	s.n++
	return scriptedStream(r), nil
}

type scriptedStream []string

func (s scriptedStream) Events() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for _, ev := range s {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func (scriptedStream) Close() error { return nil }

func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// TestEventsMatchChunks runs each turn three times: read as chat chunks by
// a Stream, as events, and by the Collector; it requires the same answer
// from each: the text, the reasoning, the client's calls, toolstream's
// events, one finish and the usage. The event path is the chunk path, read
// differently; nothing a chat client reads may be missing from it, nor
// from the Collector's answer.
func TestEventsMatchChunks(t *testing.T) {
	usage := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`
	tools := []toolhost.Tool{{Name: "create_task", Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)}}
	client := `,"tools":[{"type":"function","function":{"name":"get_location","parameters":{"type":"object"}}}]`
	tests := []struct {
		name   string
		mode   string
		tools  []toolhost.Tool
		extra  string
		rounds [][]string
	}{
		{"plain", config.ToolModeText, nil, "", [][]string{{
			chunk(`{"role":"assistant","content":"Hel"}`, ""), chunk(`{"content":"lo.","reasoning_content":null}`, ""), chunk(`{}`, "stop"), usage, "[DONE]"}}},
		{"plain reasoning", config.ToolModeNative, nil, "", [][]string{{
			chunk(`{"role":"assistant","reasoning_content":"Think."}`, ""), chunk(`{"content":"Done."}`, "stop"), "[DONE]"}}},
		{"text tool round", config.ToolModeText, tools, "", [][]string{
			{chunk(`{"role":"assistant","content":"Adding it. <tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}"}`, ""),
				chunk(`{"content":"\n</tool_call>"}`, ""), chunk(`{}`, "stop"), usage, "[DONE]"},
			{chunk(`{"role":"assistant","content":"Done \u003c3"}`, ""), chunk(`{}`, "stop"), usage, "[DONE]"}}},
		{"text client call", config.ToolModeText, tools, client, [][]string{
			{chunk(`{"role":"assistant","content":"Where? <tool_call>{\"name\": \"get_location\", \"arguments\": {}}</tool_call>"}`, ""), chunk(`{}`, "stop"), "[DONE]"}}},
		{"native mixed", config.ToolModeNative, tools, client, [][]string{
			{chunk(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"s1","type":"function","function":{"name":"create_task","arguments":"{\"title\":\"Gym\"}"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"id":"c1","type":"function","function":{"name":"get_location","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}`, ""), chunk(`{}`, "tool_calls"), usage, "[DONE]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := func(out loop.Out) {
				t.Helper()
				req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"go"}]` + tt.extra + `}`))
				if err != nil {
					t.Fatal(err)
				}
				lc := config.Default().Loop
				lc.Keepalive = 0
				r := loop.Runner{NewID: func(p string) string { return p + "1" }}
				turn := &loop.Turn{Request: req, Upstream: &scripted{rounds: tt.rounds}, UpstreamName: "mem", Format: "hermes",
					Tools: tt.tools, Loop: lc, Mode: tt.mode}
				if len(tt.tools) > 0 {
					turn.Executor = looptest.FixedExec{}
				}
				if _, err := r.Run(context.Background(), turn, out); err != nil {
					t.Fatal(err)
				}
			}
			var w writes
			run(chat.NewStream(&w))
			col := &chat.Collector{Events: true}
			run(col)
			rec := &looptest.Recorder{}
			run(rec)

			type answer struct {
				Choices []struct {
					Message struct {
						Content   *string `json:"content"`
						Reasoning string  `json:"reasoning_content"`
						ToolCalls []struct {
							ID       string `json:"id"`
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					} `json:"message"`
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
				Usage      json.RawMessage `json:"usage"`
				Toolstream struct {
					Events []json.RawMessage `json:"events"`
				} `json:"toolstream"`
			}
			var want, collected answer
			if err := json.Unmarshal(foldChunks(t, w), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(col.Completion(), &collected); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, collected); d != "" {
				t.Errorf("the Collector's answer differs (-chunks +collected):\n%s", d)
			}
			m := want.Choices[0].Message
			if m.Content != nil && rec.Visible.String() != *m.Content || m.Content == nil && rec.Visible.Len() > 0 {
				t.Errorf("text %q, chunks read %v", rec.Visible.String(), m.Content)
			}
			if rec.Thinking.String() != m.Reasoning {
				t.Errorf("reasoning %q, chunks read %q", rec.Thinking.String(), m.Reasoning)
			}
			if len(rec.Calls) != len(m.ToolCalls) {
				t.Fatalf("%d client calls, chunks read %d", len(rec.Calls), len(m.ToolCalls))
			}
			for i, c := range m.ToolCalls {
				got := rec.Calls[i]
				if got == nil || got.ID != c.ID || got.Name != c.Function.Name || got.Arguments != c.Function.Arguments {
					t.Errorf("call %d = %+v, chunks read %+v", i, got, c)
				}
			}
			var events []string
			for _, e := range want.Toolstream.Events {
				events = append(events, string(e))
			}
			if !cmp.Equal(rec.Events, events) {
				t.Errorf("events differ (-events +chunks):\n%s", cmp.Diff(rec.Events, events))
			}
			if rec.Finishes != 1 || rec.FinishReason != want.Choices[0].FinishReason {
				t.Errorf("finish %q ×%d, chunks read %q once", rec.FinishReason, rec.Finishes, want.Choices[0].FinishReason)
			}
			if string(rec.UsageJSON) != string(want.Usage) {
				t.Errorf("usage %s, chunks read %s", rec.UsageJSON, want.Usage)
			}
			if !rec.Ended {
				t.Error("no Done")
			}
		})
	}
}

// foldChunks reads the chunks a Stream wrote as a chat client would, into
// the chat.completion they add up to: the content joined (null when no
// chunk had any), the reasoning_content joined, the tool calls by index,
// the last finish_reason, the last usage and toolstream's events.
func foldChunks(t *testing.T, w writes) []byte {
	t.Helper()
	type call struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var content, reasoning *string
	var calls []*call
	var finish string
	var usage json.RawMessage
	events := []json.RawMessage{}
	join := func(to **string, s *string) {
		if s != nil {
			if *to == nil {
				*to = new(string)
			}
			**to += *s
		}
	}
	for _, line := range w {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					Reasoning *string `json:"reasoning_content"`
					ToolCalls []struct {
						Index int `json:"index"`
						call
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage      json.RawMessage `json:"usage"`
			Toolstream json.RawMessage `json:"toolstream"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		if len(c.Usage) > 0 && string(c.Usage) != "null" {
			usage = c.Usage
		}
		if len(c.Toolstream) > 0 {
			events = append(events, c.Toolstream)
		}
		if len(c.Choices) == 0 {
			continue
		}
		d := c.Choices[0].Delta
		join(&content, d.Content)
		join(&reasoning, d.Reasoning)
		for _, tc := range d.ToolCalls {
			for len(calls) <= tc.Index {
				calls = append(calls, &call{})
			}
			k := calls[tc.Index]
			if tc.ID != "" {
				k.ID = tc.ID
			}
			k.Function.Name += tc.Function.Name
			k.Function.Arguments += tc.Function.Arguments
		}
		if f := c.Choices[0].FinishReason; f != nil && *f != "" {
			finish = *f
		}
	}
	r := ""
	if reasoning != nil {
		r = *reasoning
	}
	out := map[string]any{
		"choices": []any{map[string]any{
			"message":       map[string]any{"content": content, "reasoning_content": r, "tool_calls": calls},
			"finish_reason": finish,
		}},
		"toolstream": map[string]any{"events": events},
	}
	if usage != nil {
		out["usage"] = usage
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUsageCollector: a non-streaming client's answer carries the usage,
// which its turn asked for.
func TestUsageCollector(t *testing.T) {
	tools := []toolhost.Tool{{Name: "create_task", Parameters: json.RawMessage(`{"type":"object"}`)}}
	up := &scripted{rounds: [][]string{{chunk(`{"role":"assistant","content":"Hi."}`, ""), chunk(`{}`, "stop"), `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`, "[DONE]"}}}
	req, err := loop.ParseRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	lc := config.Default().Loop
	lc.Keepalive = 0
	col := &chat.Collector{}
	var r loop.Runner
	rep, err := r.Run(context.Background(), &loop.Turn{Request: req, Upstream: up, UpstreamName: "mem", Format: "hermes",
		Tools: tools, Executor: looptest.FixedExec{}, Loop: lc, Mode: config.ToolModeText}, col)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(col.Completion()), `"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}`) {
		t.Errorf("answer %s lacks the usage", col.Completion())
	}
	if !rep.UsageKnown || rep.PromptTokens != 9 {
		t.Errorf("report usage %d known %v, want 9", rep.PromptTokens, rep.UsageKnown)
	}
}

// stepper reports progress 1..5 of 5, 30ms apart, then answers.
type stepper struct{}

func (stepper) Execute(_ context.Context, c toolhost.Call) (toolhost.Result, error) {
	for i := 1; i <= 5; i++ {
		if i > 1 {
			time.Sleep(30 * time.Millisecond)
		}
		toolhost.ReportProgress(c, toolhost.ProgressUpdate{Progress: float64(i), Total: 5, Message: "step"})
	}
	return toolhost.Result{CallID: c.ID, Name: c.Name, Content: `{"ok":true}`, IsJSON: true, Status: toolhost.StatusOK}, nil
}

// TestCollectedNoProgress: for a client that reads one answer, progress
// shows nothing; the call's tool.finished still does.
func TestCollectedNoProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req, err := loop.ParseRequest([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		lc := config.Default().Loop
		lc.Keepalive = 0
		lc.Display = config.DisplayEvents
		call, _ := json.Marshal(`<tool_call>{"name": "build", "arguments": {}}</tool_call>`)
		turn := &loop.Turn{Request: req, UpstreamName: "mem", Format: "hermes",
			Upstream: &scripted{rounds: [][]string{
				{chunk(`{"role":"assistant","content":"Working. "}`, ""), chunk(`{"content":`+string(call)+`}`, ""), chunk(`{}`, "stop"), "[DONE]"},
				{chunk(`{"role":"assistant","content":"Built."}`, ""), chunk(`{}`, "stop"), "[DONE]"}}},
			Tools: []toolhost.Tool{{Name: "build"}}, Executor: stepper{}, Loop: lc, Mode: config.ToolModeText}
		col := &chat.Collector{Events: true}
		if _, err := (&loop.Runner{}).Run(context.Background(), turn, col); err != nil {
			t.Fatal(err)
		}
		b := col.Completion()
		if strings.Contains(string(b), "tool.progress") || !strings.Contains(string(b), "tool.finished") {
			t.Errorf("collected answer: %s", b)
		}
	})
}
