package detect_test

import (
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/loop/detect"
)

// The auto table test: auto must read a reply as well as the right format:
// runSteps runs every step table taught in a dialect under auto too, with
// the same known tools, and wants the same calls and the same visible
// text, fed whole, a byte at a time and cut at every byte. A case whose
// result differs under auto is listed in autoDiffers with the reason,
// which docs/tool-calls.md gives for auto too; an entry whose case no
// longer differs fails, and so does one no table ran (TestMain), so the
// list stays true.

// checkAuto runs in, a table taught in a dialect, under auto.
func checkAuto(t *testing.T, opts detect.Options, in, wantVis string, wantCalls []detect.Call) {
	t.Helper()
	if opts.Taught == "" || opts.Taught == detect.Auto {
		return
	}
	why, listed := autoDiffers[t.Name()]
	autoRan.Store(t.Name(), true)
	opts.Taught = detect.Auto
	t.Run("under auto", func(t *testing.T) {
		vis, calls := run(opts, []string{in})
		want, got := jsonShapes(wantCalls), jsonShapes(calls)
		same := vis == wantVis && cmp.Equal(want, got, cmpSame)
		switch {
		case listed && same:
			t.Errorf("listed in autoDiffers (%s), but auto gives the same result now: remove the entry", why)
		case !listed && !same:
			t.Errorf("under auto: visible = %q, want %q; calls (-want +got):\n%s", vis, wantVis, cmp.Diff(want, got, cmpSame))
		}
		// Whatever auto gives, it gives however the input is cut.
		checkSplits(t, opts, in, vis, calls)
	})
}

// autoRan records the cases checkAuto ran, by test name.
var autoRan sync.Map

// TestMain fails a run of every test in which an autoDiffers entry
// matched no case (a renamed or deleted case leaves a stale reason).
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == "" {
		for name := range autoDiffers {
			if _, ok := autoRan.Load(name); !ok {
				fmt.Fprintf(os.Stderr, "autoDiffers lists %q, a case no step table ran\n", name)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// jsonShapes returns calls with llama3_json's Format read as json's.
// Under auto a bare {"name": …, "arguments": …} where a line starts is
// read as llama3_json, whose objects are json's too (autojson.go); Format
// names the syntax a block was read as, and nothing past the detector
// reads it. Every other field must be the same.
func jsonShapes(calls []detect.Call) []detect.Call {
	out := make([]detect.Call, len(calls))
	for i, c := range calls {
		if c.Format == detect.Llama3JSON {
			c.Format = detect.JSON
		}
		out[i] = c
	}
	return out
}

// Why auto reads a case otherwise than its taught dialect. Each is said
// in docs/tool-calls.md's paragraph on auto.
const (
	// Rule 6: auto teaches hermes only.
	autoUnknownName = "outside <tool_call>, auto's taught form, a block naming a tool the turn cannot run stays text; its taught dialect answers TOOL_NOT_FOUND"
	// Rule 2 holds for the taught format only.
	autoUnreadable = "outside <tool_call>, a block auto cannot read and whose name is not one the turn can run stays text; its taught dialect answers PARSE_ERROR"
	// The other way round: a dialect taught instead of hermes leaves a
	// <tool_call> of an unknown tool as text.
	autoToolCallTaught = "<tool_call> is auto's taught form: naming an unknown tool it is a call (TOOL_NOT_FOUND), where another taught dialect leaves it as text"
	autoLooksFurther   = "auto looks for llama3_json, pythonic, json's calls and Gemma 4's bare calls where a line starts, which hermes does not"
	autoLineStart      = "under auto bare JSON is looked for only where a line starts; json looks for it anywhere"
	autoNameAlone      = `under auto a bare {"name": …} without arguments stays text, as under llama3_json; json takes it for a known tool`
)

// autoHarmonyTokens: harmony's end tokens stand alone in prose.
const autoHarmonyTokens = "auto reads harmony, whose <|end|>, <|call|> and <|return|> never reach the client; where neither harmony nor auto is taught and the reply showed no harmony header, they are prose"

// autoDiffers are the cases auto reads otherwise than their taught
// dialect, by test name, with the reason.
var autoDiffers = map[string]string{
	"TestDeepSeek/taught:_unknown_tool_is_a_call":                                autoUnknownName,
	"TestKimiK2/taught:_unknown_tool_is_a_call":                                  autoUnknownName,
	"TestGemma4/taught:_unknown_tool_is_a_call":                                  autoUnknownName,
	"TestSeedOSS/taught:_unknown_tool_is_a_call":                                 autoUnknownName,
	"TestKimiK2/a_dotted_name_keeps_its_dots":                                    autoUnknownName, // mcp.search is not one of the tests' tools
	"TestQwen3Coder/taught:_unknown_tool_is_a_call":                              autoUnknownName,
	"TestKimiK3/taught:_unknown_tool_is_a_call":                                  autoUnknownName,
	"TestKimiK3Errors/a_call_without_its_tool":                                   autoUnreadable,
	"TestMiniMaxM3/taught:_unknown_tool_is_a_call":                               autoUnknownName,
	"TestMiniMaxM3/vLLM's_nested_order_call,_text_before":                        autoUnknownName, // create_order is not one of the tests' tools
	"TestMiniMaxM3Errors/an_invoke_without_a_name":                               autoUnreadable,
	"TestToolRequest/taught:_unknown_tool_is_a_call":                             autoUnknownName,
	"TestToolRequestBracket/tool_request:_taught,_an_unknown_tool_is_a_call":     autoUnknownName,
	"TestXML/taught:_unknown_tool_is_a_call":                                     autoUnknownName,
	"TestJSON/taught:_a_fenced_call_of_an_unknown_tool_is_a_call":                autoUnknownName,
	"TestFunctools/json:_taught,_an_unknown_tool_is_a_call_(TOOL_NOT_FOUND)":     autoUnknownName,
	"TestAutoFunctoolsAllKnown/json:_taught,_each_is_a_call":                     autoUnknownName,
	"TestDeepSeekErrors/empty_section":                                           autoUnreadable,
	"TestDSML/taught:_a_V4_reply_leaked_on_one_line_(hermes-agent#119261)":       autoUnknownName,
	"TestDSML/taught:_unknown_tool_is_a_call":                                    autoUnknownName,
	"TestDSML/rule_2:_words_after_the_wrapper":                                   autoUnreadable,
	"TestDSMLErrors/invoke_without_a_name":                                       autoUnreadable,
	"TestDSMLErrors/no_invoke_in_the_wrapper":                                    autoUnreadable,
	"TestKimiK2Errors/an_empty_id":                                               autoUnreadable,
	"TestGemma4Errors/taught:_words_after_the_token_are_a_PARSE_ERROR":           autoUnreadable,
	"TestToolRequestErrors/no_tool_name":                                         autoUnreadable,
	"TestXMLErrors/no_invoke":                                                    autoUnreadable,
	"TestXMLErrors/invoke_without_a_name":                                        autoUnreadable,
	"TestXMLErrors/empty_body":                                                   autoUnreadable,
	"TestXMLQuirks/no_name_among_the_attributes":                                 autoUnreadable,
	"TestXMLQuirks/an_empty_name":                                                autoUnreadable,
	"TestXMLQuirks/an_unclosed_quote":                                            autoUnreadable,
	"TestFences/a_fenced_block_naming_an_unknown_tool_in_another_format_is_code": autoToolCallTaught,
	"TestRule6KnownNames/other_format:_an_unknown_tool_is_text,_unchanged":       autoToolCallTaught,
	"TestTooLarge/another_format_naming_an_unknown_tool:_text":                   autoToolCallTaught,
	"TestLlama3JSON/not_looked_for_when_hermes_is_taught":                        autoLooksFurther,
	"TestPythonic/not_looked_for_when_hermes_is_taught":                          autoLooksFurther,
	"TestGemma4Bare/not_read_where_gemma4_is_not_taught":                         autoLooksFurther,
	"TestJSON/json_is_not_looked_for_when_not_taught":                            autoLooksFurther,
	"TestJSON/a_bare_object,_held_from_{_to_its_balancing_brace":                 autoLineStart,
	"TestJSON/an_object_whose_first_key_is_not_a_call's_is_released_at_once":     autoLineStart,
	"TestJSON/a_name_alone_is_a_call_when_the_tool_is_known":                     autoNameAlone,

	// harmony: python is a built-in recipient the turn cannot run.
	"TestHarmonyLlamaCpp/the_built-in_python_tool,_taught:_a_call_whose_body_is_no_JSON": autoUnknownName,
	"TestHarmonyVariants/taught:_an_unknown_tool_is_a_call":                              autoUnknownName,
	"TestHarmonyVariants/end_tokens_are_prose_where_harmony_is_not_read":                 autoHarmonyTokens,
}
