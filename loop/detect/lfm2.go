package detect

import "strings"

// LFM2's variant of pythonic and json (docs/tool-calls.md): the list of
// calls between its own tokens,
//
//	<|tool_call_start|>[get_candidate_status(candidate_id='12345')]<|tool_call_end|>
//
// as vLLM's lfm2 parser and llama.cpp's LFM2 handler read it; a JSON list
// of {"name": …, "arguments": …} objects in the same tokens, as LFM2 writes
// when its system prompt asks for JSON, is json's. The tokens are
// distinctive, so the block is looked for in every mode: a call when
// pythonic or json is taught, and otherwise for a known tool.
const (
	lfmCallOpen  = "<|tool_call_start|>"
	lfmCallClose = "<|tool_call_end|>"
)

var synLFM2 = syntax{
	format:   Pythonic,
	taughtBy: []Format{Pythonic, JSON},
	close:    lfmCallClose,
	fail:     kmp(lfmCallClose),
	start:    firstByteIn("["),
	parse:    parseLFM2,
	sniff: func(body string) parsed {
		if pr := sniffPythonic(strings.TrimSpace(body)); pr.name != "" {
			return pr
		}
		return parsed{name: sniffJSONName(trimBlankLeft(body)), format: JSON}
	},
}

// parseLFM2 reads the list as pythonic calls, or as json's when it holds
// objects.
func parseLFM2(body string) parsed {
	s := strings.TrimSpace(body)
	if strings.HasPrefix(trimBlankLeft(s[min(1, len(s)):]), "{") {
		pr := parseJSON(s)
		pr.format = JSON
		return pr
	}
	return parsePythonic(s)
}
