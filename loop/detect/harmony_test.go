package detect_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
)

// The harmony step table. Each reply is a real gpt-oss output from the
// test data of a reference parser, named in src:
//   - vLLM: tests/parser/test_harmony.py (v0.30.0), the test named;
//   - llama.cpp: tests/test-chat.cpp, test_gpt_oss_parser;
//   - openai/harmony: tests/test_harmony.py and docs/format.md;
//   - Ollama: harmony/harmonyparser_test.go;
//   - bug reports: vLLM #58384, llama.cpp #27720.
//
// The stop token a server stops at (<|call|>, <|return|>) is kept where
// the source has it and left out where it does not: both are real.

// hmKnown are the tools the sources call.
func hmKnown(name string) bool {
	switch name {
	case "get_weather", "search", "get_time", "get_user_location", "special_function", "edit", "generate_file":
		return true
	}
	return false
}

var hmTaught = detect.Options{Taught: detect.Harmony, Known: hmKnown}

// hmCase is one reply: what the client sees, the reasoning, the calls.
type hmCase struct {
	name, src string
	opts      detect.Options
	in        string
	vis       string
	reason    string
	calls     []detect.Call
}

// runHarmony checks each case fed whole, a byte at a time and cut at every
// byte, and under auto (checkSplits, checkAuto), and that its reasoning is
// the same however it is cut.
func runHarmony(t *testing.T, cases []hmCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.src == "" {
				t.Fatal("a case names its source")
			}
			vis, calls := run(tc.opts, []string{tc.in})
			if vis != tc.vis {
				t.Errorf("visible = %q, want %q", vis, tc.vis)
			}
			if diff := cmp.Diff(tc.calls, calls, cmpCalls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			checkSplits(t, tc.opts, tc.in, vis, calls)
			checkReasoning(t, tc.opts, tc.in, tc.reason)
			checkAuto(t, tc.opts, tc.in, vis, calls)
		})
	}
}

// checkReasoning wants the reasoning of in, fed whole, a byte at a time
// and cut at every byte, to be want.
func checkReasoning(t *testing.T, opts detect.Options, in, want string) {
	t.Helper()
	runR := func(chunks []string) string { return reasoningOf(opts, chunks) }
	if got := runR([]string{in}); got != want {
		t.Errorf("whole: reasoning = %q, want %q", got, want)
	}
	if got := runR(bytesOf(in)); got != want {
		t.Errorf("byte at a time: reasoning = %q, want %q", got, want)
	}
	for cut := 1; cut < len(in); cut++ {
		if got := runR([]string{in[:cut], in[cut:]}); got != want {
			t.Fatalf("cut at %d: reasoning = %q, want %q", cut, got, want)
		}
	}
}

func hmCallOf(name, args, raw string) detect.Call { return call(detect.Harmony, name, args, raw) }

const (
	hmAnalysis = "<|channel|>analysis<|message|>"
	hmThinking = hmAnalysis + "I'm\nthinking<|end|>"
)

func TestHarmonyVLLM(t *testing.T) { runHarmony(t, hmVLLMCases()) }

func hmVLLMCases() []hmCase {
	tokyo := "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Tokyo\"}<|call|>"
	empty := "<|start|>assistant<|channel|>commentary to=functions.get_user_location <|constrain|>json<|message|>{}<|call|>"
	paris := "<|start|>assistant to=functions.get_weather<|channel|>commentary<|constrain|>json<|message|>{\"location\": \"Paris\"}<|call|>"
	parisAnalysis := "<|start|>assistant to=functions.get_weather<|channel|>analysis<|constrain|>json<|message|>{\"location\": \"Paris\"}<|call|>"
	sf := "<|start|>assistant to=functions.get_weather<|channel|>commentary<|message|>{\"location\": \"SF\"}<|end|>"
	utc := "<|start|>assistant to=functions.get_time<|channel|>commentary<|constrain|>json<|message|>{\"timezone\": \"UTC\"}<|call|>"
	vllm := "<|start|>assistant to=functions.search<|channel|>commentary<|constrain|>json<|message|>{\"query\": \"vllm\"}<|call|>"
	return []hmCase{
		{
			name: "analysis, then a call, channel before recipient", src: "vLLM TestAdjustRequest TOOL_CALL_2_CHANNEL_FIRST",
			opts: hmTaught, in: hmAnalysis + "reasoning<|end|>" + tokyo,
			reason: "reasoning", calls: []detect.Call{hmCallOf("get_weather", `{"city":"Tokyo"}`, tokyo)},
		},
		{
			name: "a call with empty arguments", src: "vLLM TestAdjustRequest TOOL_CALL_1_CHANNEL_FIRST",
			opts: hmTaught, in: hmAnalysis + "reasoning<|end|>" + empty,
			reason: "reasoning", calls: []detect.Call{hmCallOf("get_user_location", `{}`, empty)},
		},
		{
			name: "recipient before channel, <|constrain|> without a space", src: "vLLM test_tool_call_split_across_deltas[commentary]",
			opts: hmTaught, in: hmAnalysis + "Thinking<|end|>" + paris,
			reason: "Thinking", calls: []detect.Call{hmCallOf("get_weather", `{"location":"Paris"}`, paris)},
		},
		{
			name: "a recipient on the analysis channel is a call", src: "vLLM test_tool_call_split_across_deltas[analysis]",
			opts: hmTaught, in: hmAnalysis + "Thinking<|end|>" + parisAnalysis,
			reason: "Thinking", calls: []detect.Call{hmCallOf("get_weather", `{"location":"Paris"}`, parisAnalysis)},
		},
		{
			name: "a preamble, then a call ended by <|end|>", src: "vLLM test_commentary_with_recipient_excluded",
			opts: hmTaught, in: "<|channel|>commentary<|message|>Let me check the weather.<|end|>" + sf,
			vis: "Let me check the weather.", calls: []detect.Call{hmCallOf("get_weather", `{"location":"SF"}`, sf)},
		},
		{
			name: "two calls in a row", src: "vLLM test_tool_index_across_calls",
			opts: hmTaught, in: hmAnalysis + "Thinking<|end|>" + paris + utc,
			reason: "Thinking", calls: []detect.Call{
				hmCallOf("get_weather", `{"location":"Paris"}`, paris),
				hmCallOf("get_time", `{"timezone":"UTC"}`, utc),
			},
		},
		{
			name: "a call, then the answer", src: "vLLM test_cross_channel_with_tool",
			opts: hmTaught, in: hmAnalysis + "Reasoning about query...<|end|>" + vllm + "<|start|>assistant<|channel|>final<|message|>Done",
			vis: "Done", reason: "Reasoning about query...", calls: []detect.Call{hmCallOf("search", `{"query":"vllm"}`, vllm)},
		},
		{
			name: "the answer cut off", src: "vLLM test_truncated_output",
			opts: hmTaught, in: hmAnalysis + "I'm thinking.<|end|><|start|>assistant<|channel|>final<|message|>I'm in the middle of answering",
			vis: "I'm in the middle of answering", reason: "I'm thinking.",
		},
		{
			name: "only the answer, cut off", src: "vLLM test_interrupted_first_message",
			opts: hmTaught, in: "<|channel|>final<|message|>I'm in the middle of answering",
			vis: "I'm in the middle of answering",
		},
		{
			name: "a final channel without <|message|>", src: "vLLM malformed_msgs_str, test_malformed_msgs_recovers_raw_content",
			opts: hmTaught, in: hmAnalysis + "thinking<|end|><|start|>assistant<|channel|>commentary<|message|>thinking<|end|><|start|>assistant<|channel|>final {\"answer\": \"hi\"}<|return|>",
			vis: `thinking{"answer": "hi"}`, reason: "thinking",
		},
	}
}

func TestHarmonyLlamaCpp(t *testing.T) { runHarmony(t, hmLlamaCppCases()) }

func hmLlamaCppCases() []hmCase {
	sf := "<|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}"
	sfAnalysis := "<|start|>assistant<|channel|>analysis to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}"
	cut := "<|start|>assistant<|channel|>commentary to=functions.special_function<|message|>{\"arg1"
	role := " to=functions.special_function<|channel|>commentary <|constrain|>json<|message|>{\"arg1\": 1}"
	roleAnalysis := " to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{\"arg1\": 1}"
	roleAfter := "<|start|>assistant to=functions.special_function<|channel|>analysis <|constrain|>json<|message|>{\"arg1\": 1}"
	edit := "<|start|>assistant<|channel|>commentary to=functions.edit <|constrain|>json<|message|>{\"oldString\": \"if (part < railCount - 1) {\", \"newString\": \"if (part < 4) {\", \"replaceAll\": false}"
	python := "<|start|>assistant<|channel|>commentary to=python <|constrain|>code<|message|>print(\"hello\")"
	return []hmCase{
		{
			name: "reasoning cut off", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmAnalysis + "I'm\nthink", reason: "I'm\nthink",
		},
		{
			name: "reasoning, then the answer", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + "<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
			vis: "Hello, world!\nWhat's up?", reason: "I'm\nthinking",
		},
		{
			name: "the server dropped <|call|>: the call ends with its JSON", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + sf, reason: "I'm\nthinking",
			calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, sf)},
		},
		{
			name: "a call cut inside its JSON is unclosed", src: "llama.cpp test_gpt_oss_parser (is_partial)",
			opts: hmTaught, in: hmThinking + cut, reason: "I'm\nthinking",
			calls: []detect.Call{errCall(detect.Harmony, "special_function", cut, detect.ErrUnclosed)},
		},
		{
			name: "a recipient on the analysis channel", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + sfAnalysis, reason: "I'm\nthinking",
			calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, sfAnalysis)},
		},
		{
			name: "a commentary preamble is text", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + "<|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?",
			vis: "Hello, world!\nWhat's up?", reason: "I'm\nthinking",
		},
		{
			name: "a preamble, then a call", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + "<|start|>assistant<|channel|>commentary<|message|>Hello, world!\nWhat's up?<|end|>" + sf,
			vis: "Hello, world!\nWhat's up?", reason: "I'm\nthinking",
			calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, sf)},
		},
		{
			name: "the reply opens with the recipient of the prompt's header", src: "llama.cpp test_gpt_oss_parser (tool calling in role header)",
			opts: hmTaught, in: role, calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, role)},
		},
		{
			name: "the reply opens with the recipient, analysis channel", src: "llama.cpp test_gpt_oss_parser (tool calling in role header)",
			opts: hmTaught, in: roleAnalysis, calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, roleAnalysis)},
		},
		{
			name: "recipient in the role after reasoning", src: "llama.cpp test_gpt_oss_parser",
			opts: hmTaught, in: hmThinking + roleAfter, reason: "I'm\nthinking",
			calls: []detect.Call{hmCallOf("special_function", `{"arg1":1}`, roleAfter)},
		},
		{
			name: "code in the arguments", src: "llama.cpp test-chat.cpp gpt-oss 'Complex tool calling'",
			opts: hmTaught, in: hmAnalysis + "Thinking about edit...<|end|>" + edit, reason: "Thinking about edit...",
			calls: []detect.Call{hmCallOf("edit", `{"oldString":"if (part < railCount - 1) {","newString":"if (part < 4) {","replaceAll":false}`, edit)},
		},
		{
			name: "the built-in python tool, taught: a call whose body is no JSON", src: "llama.cpp test-chat.cpp gpt-oss builtin python",
			opts: hmTaught, in: hmAnalysis + "I will execute python to say hello<|end|>" + python, reason: "I will execute python to say hello",
			calls: []detect.Call{errCall(detect.Harmony, "python", python, detect.ErrUnclosed)},
		},
		{
			name: "a stray header before the analysis", src: "llama.cpp test-chat.cpp gpt-oss (#21286)",
			opts: hmTaught, in: "<|channel|>commentary to=assistant" + hmThinking + "<|start|>assistant<|channel|>final<|message|>Hello, world!\nWhat's up?",
			vis: "Hello, world!\nWhat's up?", reason: "I'm\nthinking",
		},
	}
}

func TestHarmonySpec(t *testing.T) { runHarmony(t, hmSpecCases()) }

func hmSpecCases() []hmCase {
	latlon := "<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{\"latitude\":48.8566,\"longitude\":2.3522}<|call|>"
	tokyo := " to=functions.get_weather<|channel|>commentary<|constrain|>json<|message|>{\"location\": \"Tokyo\"}<|call|>"
	sf := "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\":\"San Francisco\"}<|call|>"
	gen := "<|start|>assistant<|channel|>commentary to=functions.generate_file<|constrain|>json<|message|>{\"template\": \"basic_html\", \"path\": \"index.html\"}<|call|>"
	plan := "**Action plan**:\n1. Generate an HTML file\n2. Generate a JavaScript for the Node.js server\n3. Start the server\n---\nWill start executing the plan step by step"
	abc := "<|start|>assistant to=functions.get_weather abc<|channel|>analysis<|message|>{\"city\": \"Paris\"}<|end|>"
	return []hmCase{
		{
			name: "channel before recipient, <|constrain|> adjacent", src: "openai/harmony test_tool_call_with_channel_before_recipient_and_constrain_adjacent",
			opts: hmTaught, in: latlon, calls: []detect.Call{hmCallOf("get_weather", `{"latitude":48.8566,"longitude":2.3522}`, latlon)},
		},
		{
			name: "recipient in the role, <|constrain|> adjacent", src: "openai/harmony test_tool_call_with_constrain_marker_adjacent",
			opts: hmTaught, in: tokyo, calls: []detect.Call{hmCallOf("get_weather", `{"location":"Tokyo"}`, tokyo)},
		},
		{
			name: "receiving tool calls", src: "openai/harmony docs/format.md, Receiving tool calls",
			opts: hmTaught, in: hmAnalysis + "Need to use function get_weather.<|end|>" + sf, reason: "Need to use function get_weather.",
			calls: []detect.Call{hmCallOf("get_weather", `{"location":"San Francisco"}`, sf)},
		},
		{
			name: "a preamble with an action plan", src: "openai/harmony docs/format.md, Preambles",
			opts: hmTaught, in: hmAnalysis + "{long chain of thought}<|end|><|start|>assistant<|channel|>commentary<|message|>" + plan + "<|end|>" + gen,
			vis: plan, reason: "{long chain of thought}",
			calls: []detect.Call{hmCallOf("generate_file", `{"template":"basic_html","path":"index.html"}`, gen)},
		},
		{
			name: "a word after the recipient is ignored", src: "Ollama TestHeaderParsing (extra token after the recipient)",
			opts: hmTaught, in: abc, calls: []detect.Call{hmCallOf("get_weather", `{"city":"Paris"}`, abc)},
		},
		{
			name: "a channel gpt-oss does not write is text", src: "vLLM #58384",
			opts: hmTaught, in: "<|channel|>comment<|message|>some text<|end|>", vis: "some text",
		},
		{
			name: "tokens inside <think> are cut, the think text is not reasoning", src: "SPEC rule: no <|start|> byte reaches the client",
			opts: hmTaught, in: "<think>plan<|end|><|start|>assistant<|channel|>final<|message|>more</think>done<|return|>",
			vis: "<think>planmore</think>done",
		},
		{
			name: "a fence line the reply ends in, a token in it", src: "FuzzHarmony: the held fence line was shown as written",
			opts: hmTaught, in: "```<|message|>", vis: "```",
		},
		{
			name: "tokens in <think> stay where harmony is not read", src: "harmonyOn: elsewhere <|end|> in prose stays prose",
			opts: native, in: "<think>a<|end|>b</think>c", vis: "<think>a<|end|>b</think>c",
		},
		{
			name: "a garbled header before the analysis", src: "llama.cpp #27720",
			opts: hmTaught, in: "<|channel|>??<|end|><|start|>assistant" + hmAnalysis + "We must comply with the gating rules.",
			vis: "??", reason: "We must comply with the gating rules.",
		},
	}
}

// The variants docs/tool-calls.md lists, and what every dialect's table
// has: calls mid-text, nested JSON, unicode and escapes, other modes.
func TestHarmonyVariants(t *testing.T) { runHarmony(t, hmVariantsCases()) }

func hmVariantsCases() []hmCase {
	nested := "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"q\": \"café <|call|> \\\"x\\\"\", \"filter\": {\"tags\": [\"a\", {\"b\": null}]}}<|call|>"
	leaked := "<|start|>assistant to=functions.get_weather<|channel|>commentary<|message|>{\"city\": \"Paris\"}<|call|>"
	jsonWord := "<|start|>assistant<|channel|>commentary to=functions.get_weather json<|message|>{\"city\": \"Paris\"}<|call|>"
	noMsg := "<|start|>assistant<|channel|>commentary to=functions.get_weather {\"city\": \"Paris\"}<|call|>"
	unknown := "<|channel|>commentary to=functions.rm <|constrain|>json<|message|>{\"path\": \"/\"}<|call|>"
	bad := "<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"q\": }<|call|>"
	return []hmCase{
		{
			name: "nested JSON, unicode, escapes and an end token inside a string", src: "harmony spec call shape, arguments of our own",
			opts: hmTaught, in: hmAnalysis + "Søk først.<|end|>" + nested, reason: "Søk først.",
			calls: []detect.Call{hmCallOf("search", `{"q":"café <|call|> \"x\"","filter":{"tags":["a",{"b":null}]}}`, nested)},
		},
		{
			name: "a control token right after the name", src: "vLLM test_harmony recipient before channel",
			opts: hmTaught, in: leaked, calls: []detect.Call{hmCallOf("get_weather", `{"city":"Paris"}`, leaked)},
		},
		{
			name: "json written without its <|constrain|> token", src: "harmony spec call shape, the constrain token left out",
			opts: hmTaught, in: jsonWord, calls: []detect.Call{hmCallOf("get_weather", `{"city":"Paris"}`, jsonWord)},
		},
		{
			name: "a call header without <|message|>", src: "harmony spec call shape, <|message|> left out",
			opts: hmTaught, in: noMsg, calls: []detect.Call{hmCallOf("get_weather", `{"city":"Paris"}`, noMsg)},
		},
		{
			name: "the stripped form: reasoning, then the answer", src: "the harmony spec's messages as a server that skips special tokens passes them on",
			opts: hmTaught, in: "analysisThe user asks 2+2. Easy.assistantfinalThe answer is 4.",
			vis: "The answer is 4.", reason: "The user asks 2+2. Easy.",
		},
		{
			name: "the stripped form: reasoning, then a call", src: "the harmony spec's messages as a server that skips special tokens passes them on",
			opts: hmTaught, in: "analysisNeed the weather; the assistant calls get_weather.assistantcommentary to=functions.get_weather json{\"city\": \"Paris\"}",
			reason: "Need the weather; the assistant calls get_weather.",
			calls:  []detect.Call{hmCallOf("get_weather", `{"city":"Paris"}`, " to=functions.get_weather json{\"city\": \"Paris\"}")},
		},
		{
			name: "the stripped form: a preamble", src: "the harmony spec's messages as a server that skips special tokens passes them on",
			opts: hmTaught, in: "analysisUser wants a plan.assistantcommentaryHere is the plan.",
			vis: "Here is the plan.", reason: "User wants a plan.",
		},
		{
			name: "prose starting with the word analysis is prose", src: "our own",
			opts: hmTaught, in: "analysis of the data shows growth.", vis: "analysis of the data shows growth.",
		},
		{
			name: "harmony in hermes mode: structure read, a known tool called", src: "harmony spec, Receiving tool calls",
			opts: detect.Options{Taught: detect.Hermes, Known: hmKnown}, in: hmThinking + "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"q\": \"x\"}<|call|>",
			reason: "I'm\nthinking",
			calls:  []detect.Call{hmCallOf("search", `{"q":"x"}`, "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"q\": \"x\"}<|call|>")},
		},
		{
			name: "taught: an unknown tool is a call", src: "rule 6",
			opts: hmTaught, in: "Let me see. " + unknown + " ok", vis: "Let me see.  ok",
			calls: []detect.Call{hmCallOf("rm", `{"path":"/"}`, unknown)},
		},
		{
			name: "taught: unreadable arguments are a parse error", src: "rule 2",
			opts: hmTaught, in: bad,
			calls: []detect.Call{errCall(detect.Harmony, "search", bad, detect.ErrMalformed)},
		},
		{
			name: "a message that ends inside a code fence ends the fence", src: "our own",
			opts: hmTaught, in: "<|channel|>final<|message|>Here:\n```python\nprint(1)\n<|return|>",
			vis: "Here:\n```python\nprint(1)\n",
		},
		{
			name: "end tokens are prose where harmony is not read", src: "our own",
			opts: detect.Options{Taught: detect.Hermes, Known: hmKnown}, in: "Phi ends with <|end|> and <|call|>.",
			vis: "Phi ends with <|end|> and <|call|>.",
		},
	}
}

// FuzzHarmony feeds harmony replies taught (with small block limits), under
// auto and in native mode. Besides the same result however the input is
// cut (visible text, calls and reasoning), it wants no harmony token in
// the visible text of a taught reply whose "<|" all open whole tokens, as
// a tokenizer writes them, and that holds no <think>.
func FuzzHarmony(f *testing.F) {
	for _, cs := range [][]hmCase{hmVLLMCases(), hmLlamaCppCases(), hmSpecCases(), hmVariantsCases()} {
		for _, c := range cs {
			f.Add(c.in, []byte{0, 3, 7})
			f.Add(c.in, []byte{1, 1})
			f.Add(c.in, []byte{0x82, 5})
		}
	}
	modes := []detect.Format{detect.Harmony, detect.Auto, ""}
	f.Fuzz(func(t *testing.T, in string, cuts []byte) {
		var m byte
		if len(cuts) > 0 {
			m = cuts[0]
		}
		opts := detect.Options{Taught: modes[int(m&0x7f)%len(modes)], Known: hmKnown}
		if m&0x80 != 0 {
			opts.MaxBlockBytes = 16 + int(m&0x3f)
		}
		wantVis, wantCalls := run(opts, []string{in})
		wantR := reasoningOf(opts, []string{in})
		for how, chunks := range map[string][]string{"cut": chunksOf(in, cuts), "byte at a time": bytesOf(in)} {
			vis, calls := run(opts, chunks)
			if vis != wantVis {
				t.Fatalf("%s %q: visible = %q, whole gives %q", how, chunks, vis, wantVis)
			}
			if diff := cmp.Diff(wantCalls, calls, cmpSame); diff != "" {
				t.Fatalf("%s %q: calls differ from whole (-whole +cut):\n%s", how, chunks, diff)
			}
			if r := reasoningOf(opts, chunks); r != wantR {
				t.Fatalf("%s %q: reasoning = %q, whole gives %q", how, chunks, r, wantR)
			}
		}
		if opts.Taught != detect.Harmony || strings.Contains(in, "<think>") || !wholeTokens(in) {
			return
		}
		for _, tok := range []string{"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>"} {
			if strings.Contains(wantVis, tok) {
				t.Fatalf("%s reaches the client: visible %q of %q", tok, wantVis, in)
			}
		}
	})
}

// reasoningOf feeds chunks and End and returns the reasoning.
func reasoningOf(opts detect.Options, chunks []string) string {
	d := detect.New(opts)
	var r strings.Builder
	for _, c := range chunks {
		d.Feed(c)
		r.WriteString(d.Reasoning())
	}
	d.End()
	r.WriteString(d.Reasoning())
	return r.String()
}

// wholeTokens reports whether every "<|" in s opens one of harmony's
// tokens, and every "|>" closes one.
func wholeTokens(s string) bool {
	toks := []string{"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>", "<|constrain|>"}
	n := 0
	for _, t := range toks {
		n += strings.Count(s, t)
	}
	return strings.Count(s, "<|") == n && strings.Count(s, "|>") == n
}

// hasHarmony reports whether in holds a harmony token or starts like a
// reply whose header the prompt opened: what harmony reads besides its
// call blocks (headers, reasoning, end tokens) is no Raw, so the other
// fuzz targets cannot check that the visible text is the input less the
// blocks.
func hasHarmony(in string) bool {
	for _, t := range []string{"<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|return|>", "<|call|>", "<|constrain|>"} {
		if strings.Contains(in, t) {
			return true
		}
	}
	s := strings.TrimLeft(in, " \t")
	return strings.HasPrefix(s, "to=") || strings.HasPrefix(in, "analysis")
}

func BenchmarkFeedPlainHarmony(b *testing.B)   { benchFeed(b, prose, hmTaught) }
func BenchmarkFeedDenseLTHarmony(b *testing.B) { benchFeed(b, denseLT, hmTaught) }

// BenchmarkFeedHarmonyMessages is prose in analysis and final messages, a
// call every few of them.
func BenchmarkFeedHarmonyMessages(b *testing.B) {
	benchFeed(b, hmAnalysis+prose+"<|end|><|start|>assistant<|channel|>final<|message|>"+prose+"<|end|>"+
		"<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json<|message|>{\"q\": \"x\"}<|call|>", hmTaught)
}
