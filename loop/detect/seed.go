package detect

import "strings"

// Seed-OSS's variant of qwen3_coder (docs/tool-calls.md): the Qwen3-Coder
// body in its own wrapper,
//
//	<seed:tool_call>
//	<function=get_weather>
//	<parameter=location>Barcelona, Spain</parameter>
//	</function>
//	</seed:tool_call>
//
// as vLLM's seed_oss parser reads it. Its reasoning span,
// <seed:think>…</seed:think>, is shown as <think> is and nothing in it
// runs (rule 7), so a Seed reply that quotes its own call while it thinks
// runs that call once, where it writes it after.
const (
	seedCallOpen   = "<seed:tool_call>"
	seedCallClose  = "</seed:tool_call>"
	seedThinkOpen  = "<seed:think>"
	seedThinkClose = "</seed:think>"
)

// synSeed is the <seed:tool_call> wrapper: a call when qwen3_coder is
// taught, and in every other mode for a known tool.
var synSeed = syntax{
	format: Qwen3Coder,
	close:  seedCallClose,
	fail:   kmp(seedCallClose),
	start:  func(s string) (int, int) { return tagAt(s, 0, qwenFunction) },
	parse:  func(body string) parsed { return parseQwen(strings.TrimSpace(body)) },
	sniff:  sniffHermes,
}
