package chunk

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/detect"
)

// thinkStep is one piece fed to a ThinkSplit and what it must give back
// at once: the step tables pin how little is held back.
type thinkStep struct{ in, reasoning, content string }

func TestThinkSplitSteps(t *testing.T) {
	tests := []struct {
		name  string
		steps []thinkStep
		end   string // reasoning returned by end
	}{{
		name: "reasoning, tag, newlines dropped, content",
		steps: []thinkStep{
			{"I should call", "I should call", ""},
			{" the tool.\n", " the tool.\n", ""},
			{"</think>\n\n", "", ""},
			{"\nHello", "", "Hello"},
			{"\n\nbye", "", "\n\nbye"},
		},
	}, {
		name: "the tag split across pieces is held only while it may be the tag",
		steps: []thinkStep{
			{"a <", "a ", ""},
			{"/thi", "", ""},
			{"nk", "", ""},
			{">x", "", "x"},
		},
	}, {
		name: "a held start that turns out not to be the tag is reasoning",
		steps: []thinkStep{
			{"a </th", "a ", ""},
			{"en", "</then", ""},
			{"</", "", ""},
			{"b", "</b", ""},
		},
		end: "",
	}, {
		name: "no </think> at all: every byte is reasoning, the held end too",
		steps: []thinkStep{
			{"thinking and thinking </thin", "thinking and thinking ", ""},
		},
		end: "</thin",
	}, {
		name: "only the first </think> ends reasoning; later ones are content",
		steps: []thinkStep{
			{"r</think>c </think> d", "r", "c </think> d"},
		},
	}, {
		name: "empty reasoning",
		steps: []thinkStep{
			{"</think>\n\nHi", "", "Hi"},
		},
	}, {
		name: "a reply that opens <think> itself is left as it is",
		steps: []thinkStep{
			{"\n<thi", "", ""},
			{"nk>x</think>y", "", "\n<think>x</think>y"},
			{"z", "", "z"},
		},
	}, {
		name: "a start that looks like <think> but is not: reasoning",
		steps: []thinkStep{
			{"<th", "", ""},
			{"ese are thoughts</think>ok", "<these are thoughts", "ok"},
		},
	}, {
		name: "blanks before anything are held, then reasoning",
		steps: []thinkStep{
			{"\n", "", ""},
			{" ", "", ""},
			{"So", "\n So", ""},
		},
	}, {
		name: "a reply of blanks only ends as reasoning",
		steps: []thinkStep{
			{"\n\n", "", ""},
		},
		end: "\n\n",
	}, {
		name: "a tool call after the reasoning is content, for the detectors",
		steps: []thinkStep{
			{"Use the tool.</think>\n<tool_call>\n{}", "Use the tool.", "<tool_call>\n{}"},
		},
	}, {
		name: "a tool call inside the reasoning is reasoning",
		steps: []thinkStep{
			{"<tool_call>{\"name\":\"x\"}</tool_call>", "<tool_call>{\"name\":\"x\"}</tool_call>", ""},
			{"</think>done", "", "done"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var th ThinkSplit
			for i, st := range tt.steps {
				r, c := th.Feed(st.in)
				if r != st.reasoning || c != st.content {
					t.Errorf("step %d feed(%q) = (%q, %q), want (%q, %q)", i, st.in, r, c, st.reasoning, st.content)
				}
			}
			if got := th.End(); got != tt.end {
				t.Errorf("end() = %q, want %q", got, tt.end)
			}
		})
	}
}

// TestThinkSplitAnywhere feeds whole replies cut in two at every byte and
// byte by byte: the reasoning, the content and the thought kept for the
// history are always the same.
func TestThinkSplitAnywhere(t *testing.T) {
	tests := []struct {
		reply, reasoning, content, thought string
	}{
		{"Let me think: «ü» </thi nk\n</think>\n\nÜber <tool_call>{}</tool_call>",
			"Let me think: «ü» </thi nk\n", "Über <tool_call>{}</tool_call>",
			"Let me think: «ü» </thi nk\n</think>"},
		{"no close tag, <think> inside", "no close tag, <think> inside", "", "no close tag, <think> inside"},
		{"  <think>explicit</think>\nanswer", "", "  <think>explicit</think>\nanswer", ""},
		{"</think>", "", "", "</think>"},
		{"<<</think>>", "<<", ">", "<<</think>"},
		{"a</think>\r\n\r\nb\n", "a", "b\n", "a</think>"},
	}
	for _, tt := range tests {
		splitAnywhere(t, nil, tt.reply, tt.reasoning, tt.content, tt.thought)
	}
}

// splitAnywhere feeds reply cut in two at every byte and byte by byte to a
// ThinkSplit with ends, and wants the same reasoning, content and thought
// every way.
func splitAnywhere(t *testing.T, ends []string, reply, reasoning, content, thought string) {
	t.Helper()
	check := func(how string, pieces []string) {
		t.Helper()
		th := ThinkSplit{Ends: ends}
		var r, c string
		for _, p := range pieces {
			pr, pc := th.Feed(p)
			r, c = r+pr, c+pc
		}
		r += th.End()
		if r != reasoning || c != content || th.Thought() != thought {
			t.Errorf("%q %s: reasoning %q content %q thought %q, want %q %q %q", reply, how, r, c, th.Thought(), reasoning, content, thought)
		}
	}
	for i := 0; i <= len(reply); i++ {
		check("cut at "+strconv.Itoa(i), []string{reply[:i], reply[i:]})
	}
	var bytes []string
	for i := 0; i < len(reply); i++ {
		bytes = append(bytes, reply[i:i+1])
	}
	check("byte by byte", bytes)
}

func TestThinkSplitUpstreamReasoning(t *testing.T) {
	var p fastjson.Parser
	tests := []struct {
		delta string
		has   bool
	}{
		{`{"reasoning_content":"x"}`, true},
		{`{"reasoning":"x\u0001"}`, true},
		{`{"reasoning_content":null,"content":"a"}`, false},
		{`{"reasoning_content":""}`, false},
		{`{"content":"a"}`, false},
	}
	for _, tt := range tests {
		v, err := p.Parse(tt.delta)
		if err != nil {
			t.Fatal(err)
		}
		if got := HasReasoning(v); got != tt.has {
			t.Errorf("HasReasoning(%s) = %v, want %v", tt.delta, got, tt.has)
		}
	}
	// A server with its own reasoning parser: content stays content.
	var th ThinkSplit
	th.UpstreamSplits()
	r, c := th.Feed("answer</think>")
	if diff := cmp.Diff([2]string{"", "answer</think>"}, [2]string{r, c}); diff != "" {
		t.Errorf("after upstreamSplits (-want +got):\n%s", diff)
	}
}

// TestThinkSplitBeforeDetectors cuts a Qwen3 reply at every byte and
// runs it through the split and then the detectors, as a round does: the
// call rehearsed in the reasoning never runs, the one after </think> does,
// and the client sees no markup.
func TestThinkSplitBeforeDetectors(t *testing.T) {
	reply := "Maybe <tool_call>\n{\"name\": \"list_tasks\", \"arguments\": {}}\n</tool_call> first?\n</think>\n\n" +
		"Adding it.\n<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	known := func(name string) bool { return name == "create_task" || name == "list_tasks" }
	for cut := 0; cut <= len(reply); cut++ {
		var th ThinkSplit
		det := detect.New(detect.Options{Taught: detect.Hermes, Known: known})
		var reasoning, visible string
		var names []string
		for _, piece := range []string{reply[:cut], reply[cut:]} {
			r, c := th.Feed(piece)
			reasoning += r
			v, calls := det.Feed(c)
			visible += v
			for _, call := range calls {
				names = append(names, call.Name)
			}
		}
		reasoning += th.End()
		v, calls := det.End()
		visible += v
		for _, call := range calls {
			names = append(names, call.Name)
		}
		if want := "Maybe <tool_call>\n{\"name\": \"list_tasks\", \"arguments\": {}}\n</tool_call> first?\n"; reasoning != want {
			t.Errorf("cut %d: reasoning %q, want %q", cut, reasoning, want)
		}
		if want := "Adding it.\n"; visible != want {
			t.Errorf("cut %d: visible %q, want %q", cut, visible, want)
		}
		if diff := cmp.Diff([]string{"create_task"}, names); diff != "" {
			t.Errorf("cut %d: calls (-want +got):\n%s", cut, diff)
		}
	}
}
