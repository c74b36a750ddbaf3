package textmode

import "github.com/toolstream/toolstream/loop/detect"

// dialect is what the prompt says differently per format.
type dialect struct {
	// how introduces the worked example.
	how string
	// rules are the format's own rules, before the common ones.
	rules []string
	// fence is the rule about code fences and <think>.
	fence string
	// frame says how results arrive, completing "The results arrive in
	// the next message, …".
	frame string
}

// plainText is the fence rule of the marker formats. docs/tool-calls.md does
// take a fence holding exactly one block, but a fence around a longer
// example is text, so the model is taught never to fence a call.
const plainText = "Write calls as plain text: never inside a code fence (```), and never inside <think>…</think>, where they are not run."

// lineStart is the fence rule of llama3_json and pythonic: having no
// marker, they are detected only where a line starts (docs/tool-calls.md).
const lineStart = "Start each call at the beginning of a line and write it as plain text: never inside a code fence (```), and never inside <think>…</think>, where it is not run."

// validJSON is the rule of every dialect whose arguments are JSON.
const validJSON = "The JSON must be valid: keys and strings in double quotes, numbers and booleans without quotes."

// The special tokens of the DeepSeek V3.1 and Kimi K2 dialects. DeepSeek's
// are written with U+FF5C FULLWIDTH VERTICAL LINE and U+2581 LOWER ONE
// EIGHTH BLOCK, byte for byte as in its tokenizer; a model taught them with
// ASCII bars would write tokens its template never produced.
const (
	dsCallsBegin  = "<｜tool▁calls▁begin｜>"
	dsCallBegin   = "<｜tool▁call▁begin｜>"
	dsSep         = "<｜tool▁sep｜>"
	dsCallEnd     = "<｜tool▁call▁end｜>"
	dsCallsEnd    = "<｜tool▁calls▁end｜>"
	dsOutputBegin = "<｜tool▁output▁begin｜>"
	dsOutputEnd   = "<｜tool▁output▁end｜>"

	kimiSectionBegin = "<|tool_calls_section_begin|>"
	kimiCallBegin    = "<|tool_call_begin|>"
	kimiArgBegin     = "<|tool_call_argument_begin|>"
	kimiCallEnd      = "<|tool_call_end|>"
	kimiSectionEnd   = "<|tool_calls_section_end|>"
	// kimiReturn heads a result, "## Return of functions.NAME:IDX".
	kimiReturn = "## Return of "

	// gpt-oss's harmony tokens.
	hmStart     = "<|start|>"
	hmChannel   = "<|channel|>"
	hmConstrain = "<|constrain|>"
	hmMessage   = "<|message|>"
	hmCall      = "<|call|>"
	hmEnd       = "<|end|>"
)

// DeepSeek V3.2's DSML tokens (U+FF5C as in its tokenizer) and the frame
// its encoding (encoding_dsv32.py) puts tool results in.
const (
	dsmlCalls      = "<｜DSML｜function_calls>"
	dsmlCallsEnd   = "</｜DSML｜function_calls>"
	dsmlInvoke     = "<｜DSML｜invoke"
	dsmlInvokeEnd  = "</｜DSML｜invoke>"
	dsmlParam      = "<｜DSML｜parameter"
	dsmlParamEnd   = "</｜DSML｜parameter>"
	dsmlResults    = "<function_results>"
	dsmlResultsEnd = "</function_results>"
)

// dialects are the text formats of docs/tool-calls.md. Each model-family
// dialect teaches the syntax its family's chat template renders tool calls in,
// and names the frame that template renders tool results in; the comment on
// each entry says which template.
var dialects = map[detect.Format]dialect{
	detect.XML: {
		how: "Write a <tool_use> block with one <invoke> element per call and one <parameter> element per argument.",
		rules: []string{
			"Write each value as plain text, without quotes or escaping; write arrays and objects as JSON. A value ends at the first </parameter>.",
			"To make several calls at once, put several <invoke> elements in one <tool_use> block. Their results come back in the order written.",
		},
		fence: plainText,
		frame: `each in a <tool_result name="…" call_id="…">…</tool_result> block`,
	},
	detect.ToolRequest: {
		how: "Write a block from <<<[TOOL_REQUEST]>>> to <<<[END_TOOL_REQUEST]>>>: first tool_name, then one name:「始」value「末」 per argument, separated by commas.",
		rules: []string{
			"Write each value as plain text between 「始」 and 「末」, without quotes; a value may span several lines. Write arrays and objects as JSON.",
			"If a value itself contains 「末」, delimit it with 「始ESCAPE」 and 「末ESCAPE」 instead of 「始」 and 「末」.",
			"To make several calls at once, write several blocks, one per call. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each in a block from [TOOL_RESULT] to [END_TOOL_RESULT]",
	},
	detect.Hermes: {
		how: `Write a <tool_call> block holding one JSON object with the tool's "name" and its "arguments" as an object.`,
		rules: []string{
			validJSON,
			"To make several calls at once, write several <tool_call> blocks, one per call. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each in a <tool_response>…</tool_response> block",
	},
	detect.JSON: {
		how: "Write a ```json code block holding one JSON object with a \"tool_calls\" list; each entry has the tool's \"name\" and its \"arguments\" as an object.",
		rules: []string{
			validJSON,
			"To make several calls at once, put several entries in the \"tool_calls\" list. Their results come back in the order written.",
		},
		fence: "Put nothing but the JSON object inside the ```json block, and never write a call inside <think>…</think>, where it is not run.",
		frame: `as one JSON object {"tool_results": […]} with one entry per call`,
	},

	// Qwen3-Coder's chat template (Qwen3-Coder-480B-A35B-Instruct,
	// Qwen3-Coder-30B-A3B-Instruct): tags on lines of their own, values
	// as raw text (arrays and objects as JSON), results in
	// <tool_response> blocks like every Qwen template.
	detect.Qwen3Coder: {
		how: "Write a <tool_call> block holding a <function=…> element with the tool's name after the =, and in it one <parameter=…> element per argument with the argument's name after the =. Put every tag on a line of its own.",
		rules: []string{
			"Write each value as plain text on the lines between <parameter=…> and </parameter>, without quotes or escaping; a value may span several lines. Write arrays and objects as JSON.",
			"To make several calls at once, write several <tool_call> blocks, one per call. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each in a <tool_response>…</tool_response> block",
	},
	// Llama 3.1's chat template (also 3.2 and 3.3 with JSON tool calls):
	// "Respond in the format {"name": function name, "parameters":
	// dictionary of argument name and its value}". The template allows one
	// call per message; several calls joined by "; " are what vLLM's
	// llama3_json and SGLang's Llama 3.2 parsers split. Results are the
	// content of an ipython message, which has no frame of its own.
	detect.Llama3JSON: {
		how: `Write one JSON object on a line of its own, with the tool's "name" and its "parameters" as an object.`,
		rules: []string{
			validJSON,
			`To make several calls at once, write their objects on the same line, separated by "; ". Their results come back in the order written.`,
		},
		fence: lineStart,
		frame: `each on a line of its own as a JSON object with the tool's name ("tool"), the "call_id" and the result ("content")`,
	},
	// The pythonic tool-call prompt of Llama 3.2 and Llama 4 ("you MUST
	// put it in the format of [func_name1(params_name1=params_value1,
	// ...), func_name2(params)]"), as vLLM's pythonic parser reads it.
	// Results are ipython content, as for llama3_json.
	detect.Pythonic: {
		how: "Write a Python list holding the call, on a line of its own: the tool's name, then its arguments in parentheses as keyword arguments.",
		rules: []string{
			"Write each value as a Python literal: strings in double quotes, numbers as they are, True, False and None, lists in [ ] and dictionaries in { }. Name every argument; never pass one by position.",
			"To make several calls at once, put them all in the same list, separated by commas. Their results come back in the order written.",
		},
		fence: lineStart,
		frame: `each on a line of its own as a JSON object with the tool's name ("tool"), the "call_id" and the result ("content")`,
	},
	// The chat template of Mistral's v3 tokenizer (Mistral-7B-Instruct-v0.3,
	// Mistral-Nemo, Mixtral-8x22B-Instruct-v0.1): a JSON list after
	// [TOOL_CALLS] (the "id" it renders is the server's, so it is not
	// taught), each result [TOOL_RESULTS]{"content": …, "call_id": …}
	// [/TOOL_RESULTS]. The NAME[ARGS]{…} form of the newer tokenizers is
	// detected but not taught.
	detect.Mistral: {
		how: `Write [TOOL_CALLS] followed at once by a JSON list of calls; each call is an object with the tool's "name" and its "arguments" as an object.`,
		rules: []string{
			validJSON,
			"To make several calls at once, put several call objects in the one list after [TOOL_CALLS]. Their results come back in the order written.",
		},
		fence: plainText,
		frame: `each in a [TOOL_RESULTS]…[/TOOL_RESULTS] block holding {"content": …, "call_id": …}`,
	},
	// DeepSeek-V3.1's chat template and the tool-call format its model
	// card gives ("chain them directly without separators or spaces"):
	// bare JSON arguments after <｜tool▁sep｜>, each result between
	// <｜tool▁output▁begin｜> and <｜tool▁output▁end｜> (V3.1 dropped the
	// <｜tool▁outputs▁begin｜> wrapper of V3 and R1).
	detect.DeepSeek: {
		how: "Write a " + dsCallsBegin + " section holding the call: " + dsCallBegin + ", the tool's name, " + dsSep + ", the arguments as one JSON object, then " + dsCallEnd + "; close the section with " + dsCallsEnd + ".",
		rules: []string{
			"Write the markers exactly as shown, with the fullwidth bar ｜ and the ▁ character.",
			validJSON,
			"To make several calls at once, chain several " + dsCallBegin + "…" + dsCallEnd + " calls inside one section, without separators or spaces. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each between " + dsOutputBegin + " and " + dsOutputEnd,
	},
	// Kimi K2's chat template (Kimi-K2-Instruct-0905, Kimi-K2-Thinking):
	// call ids functions.NAME:IDX, each result a tool message opening
	// "## Return of " + its call id.
	detect.KimiK2: {
		how: "Write a " + kimiSectionBegin + " section holding the call: " + kimiCallBegin + ", the call id functions.NAME:IDX, " + kimiArgBegin + ", the arguments as one JSON object, then " + kimiCallEnd + "; close the section with " + kimiSectionEnd + ".",
		rules: []string{
			"In the call id, NAME is the tool's name and IDX numbers the calls of your reply: 0 for the first, then 1, 2 and so on.",
			validJSON,
			"To make several calls at once, write several " + kimiCallBegin + "…" + kimiCallEnd + " calls in one section. Their results come back in the order written.",
		},
		fence: plainText,
		frame: `each under a line "` + kimiReturn + `functions.NAME:IDX" with your call's id`,
	},
	// gpt-oss's chat template and openai-harmony's renderer: a call is a
	// commentary message to=functions.NAME whose content is the JSON
	// arguments, ended by <|call|>, where the server stops; a result is a
	// tool message <|start|>functions.NAME to=assistant<|channel|>
	// commentary<|message|>…<|end|>. The model thinks on the analysis
	// channel and answers on final, as it was trained to.
	detect.Harmony: {
		how: "Write a message on the commentary channel addressed to the tool: " + hmChannel + "commentary to=functions.NAME " + hmConstrain + "json" + hmMessage + ", the arguments as one JSON object, then " + hmCall + ".",
		rules: []string{
			"NAME is the tool's name. After your reasoning on the analysis channel, open the call's message with " + hmStart + "assistant.",
			validJSON,
			"Make one call per message and stop after " + hmCall + ": its result comes back before you go on. To make several calls, make them one after another, each once the result before it is back. Write your answer to the user on the final channel.",
		},
		fence: "Write calls as messages of their own: never inside a code fence (```), and never in the text of the analysis channel or inside <think>…</think>, where they are not run.",
		frame: "each as a message " + hmStart + "functions.NAME to=assistant" + hmChannel + "commentary" + hmMessage + "…" + hmEnd + " from the tool",
	},
	// DeepSeek V3.2's encoding (encoding_dsv32.py in its model repository):
	// the function_calls wrapper (V4's encoding names it tool_calls; both
	// are read), string="true" values raw and others as JSON, and the
	// results of a round in one <function_results> block, a <result> per
	// call.
	detect.DSML: {
		how: "Write a " + dsmlCalls + " block holding one " + dsmlInvoke + ` name="…"> element per call and one ` + dsmlParam + ` name="…" string="…"> element per argument, then close it with ` + dsmlCallsEnd + ".",
		rules: []string{
			"Write the tags exactly as shown, with the fullwidth bar ｜ on each side of DSML.",
			`Write a string value as plain text with string="true", without quotes or escaping; write numbers, booleans, arrays and objects as JSON with string="false". A value ends at the first ` + dsmlParamEnd + ".",
			"To make several calls at once, write several " + dsmlInvoke + ` name="…">…` + dsmlInvokeEnd + " elements in one block. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "in one " + dsmlResults + " block, each in a <result>…</result> element",
	},
	// The chat template of GLM-4.5 and GLM-4.6: the name right after
	// <tool_call>, string values raw and other values as JSON, results in
	// <tool_response> blocks (the template's <|observation|> is the role
	// token of tool messages, written by the server's template for the
	// result message's role, never by us).
	detect.GLM: {
		how: "Write a <tool_call> block: the tool's name right after <tool_call>, then one <arg_key>…</arg_key> and <arg_value>…</arg_value> pair per argument, each on a line of its own.",
		rules: []string{
			"Write a string value as plain text, without quotes or escaping; write numbers, booleans, arrays and objects as JSON.",
			"To make several calls at once, write several <tool_call> blocks, one per call. Their results come back in the order written.",
		},
		fence: plainText,
		frame: "each in a <tool_response>…</tool_response> block",
	},
}

// formatOf maps f to a format this package knows. Auto is taught as hermes
// (docs/tool-calls.md): a model whose dialect is unknown is taught the most
// widely trained syntax, and its own dialect is still detected. config
// validates text_format, so another unknown value only comes from a caller's
// bug; it gets hermes, the default text_format, rather than no tools at all.
func formatOf(f detect.Format) detect.Format {
	if _, ok := dialects[f]; ok {
		return f
	}
	return detect.Hermes
}
