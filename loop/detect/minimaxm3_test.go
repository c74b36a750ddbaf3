package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

var mmTaught = detect.Options{Taught: detect.MiniMaxM3, Known: known}

// NS is MiniMax M3's namespace token.
const NS = "]<]minimax[>["

// mmInvoke writes one invoke of tool with leaf arguments (key, value pairs).
func mmInvoke(tool string, kv ...string) string {
	s := NS + `<invoke name="` + tool + `">`
	for i := 0; i+1 < len(kv); i += 2 {
		s += NS + "<" + kv[i] + ">" + kv[i+1] + NS + "</" + kv[i] + ">"
	}
	return s + NS + "</invoke>"
}

func TestMiniMaxM3(t *testing.T) {
	// vLLM's tests/tool_parsers/test_minimax_m3_tool_parser.py,
	// build_order_call: leaves, a nested object, an array of objects as
	// <item>s, a map, and a member written twice.
	order := NS + "<tool_call>\n" +
		NS + `<invoke name="create_order">` +
		NS + "<user_id>42" + NS + "</user_id>" +
		NS + "<urgent>true" + NS + "</urgent>" +
		NS + "<note>Please leave at front desk." + NS + "</note>" +
		NS + "<shipping>" + NS + "<city>Singapore" + NS + "</city>" + NS + "<zip>018956" + NS + "</zip>" + NS + "</shipping>" +
		NS + "<items>" +
		NS + "<item>" + NS + "<sku>book-001" + NS + "</sku>" + NS + "<qty>2" + NS + "</qty>" + NS + "</item>" +
		NS + "<item>" + NS + "<sku>pen-007" + NS + "</sku>" + NS + "<qty>5" + NS + "</qty>" + NS + "</item>" +
		NS + "</items>" +
		NS + "<metadata>" + NS + "<source>mobile" + NS + "</source>" + NS + "<campaign>may-launch" + NS + "</campaign>" + NS + "</metadata>" +
		NS + "<duplicate_demo>" + NS + "<tag>a" + NS + "</tag>" + NS + "<tag>b" + NS + "</tag>" + NS + "</duplicate_demo>" +
		NS + "</invoke>\n" + NS + "</tool_call>"
	orderArgs := `{"user_id":"42","urgent":"true","note":"Please leave at front desk.",` +
		`"shipping":{"city":"Singapore","zip":"018956"},` +
		`"items":[{"sku":"book-001","qty":"2"},{"sku":"pen-007","qty":"5"}],` +
		`"metadata":{"source":"mobile","campaign":"may-launch"},"duplicate_demo":{"tag":["a","b"]}}`
	// The same file's build_multiple_order_call, with our tool names.
	two := NS + "<tool_call>\n" + mmInvoke("search", "q", "1") + "\n" + mmInvoke("get_weather", "city", "2") + "\n" + NS + "</tool_call>"
	// test_streaming_error_recovery_keeps_committed_tool_call_structured:
	// the reply ends inside the second invoke.
	cut := "plain " + NS + "<tool_call>\n" + mmInvoke("search", "q", "1") + "\n" + NS + `<invoke name="get_weather">` + NS + "<city>2"
	// A leaked reply an agent app saw (its test "never emits MiniMax
	// textual tool-call protocol"): an invoke without arguments.
	bare := NS + "<tool_call>\n" + NS + `<invoke name="search">` + NS + "</invoke>\n" + NS + "</tool_call>"
	// SGLang's minimax_m3 detector drops white space between the token
	// and its tag.
	spaced := NS + "<tool_call>\n" + NS + " " + `<invoke name="search">` + NS + "\n<q>x" + NS + " </q>" + NS + "</invoke>" + NS + "</tool_call>"
	unicode := NS + "<tool_call>" + mmInvoke("get_weather", "city", "\nZürich 東京 \"quoted\" \\ a<b\n", "days", "3") + NS + "</tool_call>"
	arrays := NS + "<tool_call>" + NS + `<invoke name="search">` + NS + "<tags>" + NS + "<item>a" + NS + "</item>" + NS + "</tags>" +
		NS + "<matrix>" + NS + "<item>" + NS + "<item>1" + NS + "</item>" + NS + "<item>2" + NS + "</item>" + NS + "</item>" + NS + "</matrix>" +
		NS + "<raw>[1, 2]" + NS + "</raw>" + NS + "</invoke>" + NS + "</tool_call>"
	unknown := NS + "<tool_call>" + mmInvoke("rm", "path", "/") + NS + "</tool_call>"
	runSteps(t, []stepCase{
		{
			name:  "vLLM's nested order call, text before",
			opts:  mmTaught,
			steps: []step{feed("I will create it.\n"+order, "I will create it.\n", call(detect.MiniMaxM3, "create_order", orderArgs, order)), end("")},
		},
		{
			name: "two invokes in one block",
			opts: mmTaught,
			steps: []step{feed(two, "",
				call(detect.MiniMaxM3, "search", `{"q":"1"}`, two),
				call(detect.MiniMaxM3, "get_weather", `{"city":"2"}`, two)), end("")},
		},
		{
			name: "a block left open: the complete invoke runs, the cut one is a PARSE_ERROR",
			opts: mmTaught,
			steps: []step{feed(cut, "plain "), end("",
				call(detect.MiniMaxM3, "search", `{"q":"1"}`, cut[len("plain "):]),
				errCall(detect.MiniMaxM3, "get_weather", cut[len("plain "):], detect.ErrUnclosed))},
		},
		{
			name:  "an invoke without arguments",
			opts:  mmTaught,
			steps: []step{feed(bare, "", call(detect.MiniMaxM3, "search", `{}`, bare)), end("")},
		},
		{
			name:  "white space after the token",
			opts:  mmTaught,
			steps: []step{feed(spaced, "", call(detect.MiniMaxM3, "search", `{"q":"x"}`, spaced)), end("")},
		},
		{
			name:  "mid-text, after reasoning, unicode and escapes",
			opts:  mmTaught,
			steps: []step{feed("<think>weather?</think>\nChecking. "+unicode+" Done.", "<think>weather?</think>\nChecking.  Done.", call(detect.MiniMaxM3, "get_weather", `{"city":"Zürich 東京 \"quoted\" \\ a<b","days":"3"}`, unicode)), end("")},
		},
		{
			name:  "arrays as items, nested, and JSON text",
			opts:  mmTaught,
			steps: []step{feed(arrays, "", call(detect.MiniMaxM3, "search", `{"tags":["a"],"matrix":[["1","2"]],"raw":"[1, 2]"}`, arrays)), end("")},
		},
		{
			name: "fed in pieces; a last ']' is held",
			opts: mmTaught,
			steps: []step{
				feed("x ]", "x "),
				feed("<]mini", ""),
				feed(two[len("]<]mini"):], "", call(detect.MiniMaxM3, "search", `{"q":"1"}`, two), call(detect.MiniMaxM3, "get_weather", `{"city":"2"}`, two)),
				end(""),
			},
		},
		{
			name:  "brackets in prose",
			opts:  mmTaught,
			steps: []step{feed("a[1] ]] ]<] [x]<br> ", "a[1] ]] ]<] [x]<br> "), feed("]", ""), feed(" ok", "] ok"), end("")},
		},
		{
			name:  "brackets in prose, hermes taught",
			opts:  hermesTaught,
			steps: []step{feed("see [1]", "see [1"), feed(" and a[i]", "] and a[i"), feed("<b", "]<b"), feed(">]<]x", ">]<]x"), end("")},
		},
		{
			name:  "the token's tail without its ']' is prose",
			opts:  mmTaught,
			steps: []step{feed("x <]minimax[>[<tool_call> is not it", "x <]minimax[>[<tool_call> is not it"), end("")},
		},
		{
			name:  "taught: unknown tool is a call",
			opts:  mmTaught,
			steps: []step{feed(unknown, "", call(detect.MiniMaxM3, "rm", `{"path":"/"}`, unknown)), end("")},
		},
		{
			name:  "native mode: known tool is a call, unknown is text",
			opts:  native,
			steps: []step{feed(unknown+two, unknown, call(detect.MiniMaxM3, "search", `{"q":"1"}`, two), call(detect.MiniMaxM3, "get_weather", `{"city":"2"}`, two)), end("")},
		},
		{
			name:  "prose naming the token",
			opts:  mmTaught,
			steps: []step{feed("M3 writes "+NS+"<tool_call> before its calls.", "M3 writes "+NS+"<tool_call> before its calls."), end("")},
		},
	})
}

func TestMiniMaxM3Errors(t *testing.T) {
	for _, tc := range []struct {
		name, block, wantName string
	}{
		{"an invoke without a name", NS + "<tool_call>" + NS + "<invoke>" + NS + "</invoke>" + NS + "</tool_call>", ""},
		{"an argument without its close", NS + "<tool_call>" + NS + `<invoke name="search">` + NS + "<q>x" + NS + "</invoke>" + NS + "</tool_call>", "search"},
		{"text between arguments", NS + "<tool_call>" + NS + `<invoke name="search">` + NS + "<q>x" + NS + "</q> and" + NS + "</invoke>" + NS + "</tool_call>", "search"},
		{"a close where an argument opens", NS + "<tool_call>\n" + NS + `<invoke name="search">` + NS + "</q>" + NS + "</invoke>" + NS + "</tool_call>", "search"},
	} {
		runSteps(t, []stepCase{{
			name:  tc.name,
			opts:  mmTaught,
			steps: []step{feed(tc.block, "", errCall(detect.MiniMaxM3, tc.wantName, tc.block, detect.ErrMalformed)), end("")},
		}})
	}
	// vLLM's test_streaming_flushes_partial_tool_start_as_text: a cut
	// opening is text.
	runSteps(t, []stepCase{{
		name:  "a cut opening is text",
		opts:  mmTaught,
		steps: []step{feed("plain "+NS+"<tool_ca", "plain "), end(NS + "<tool_ca")},
	}})
}

func FuzzMiniMaxM3(f *testing.F) { fuzzDetector(f, taughtWithLimit(detect.MiniMaxM3)) }

func BenchmarkFeedPlainMiniMaxM3(b *testing.B)        { benchFeed(b, prose, mmTaught) }
func BenchmarkFeedDenseLTMiniMaxM3(b *testing.B)      { benchFeed(b, denseLT, mmTaught) }
func BenchmarkFeedDenseBracketMiniMaxM3(b *testing.B) { benchFeed(b, denseBracket, mmTaught) }
