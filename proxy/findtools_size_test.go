package proxy_test

import (
	"net/http"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestFindToolsPromptSize measures what the search saves: the bytes of
// round 1's request body, and of its system prompt in text mode, for 40
// and 200 tools of a one-sentence description and two parameters, with the
// search off and on. go test -run FindToolsPromptSize -v prints them.
func TestFindToolsPromptSize(t *testing.T) {
	for _, n := range []int{40, 200} {
		for _, mode := range []string{"text", "native"} {
			size := func(loopExtra string) (body, sys int) {
				yaml := manyTools(n, loopExtra)
				if mode == "native" {
					yaml = nativeYAML(yaml)
				}
				e := newTurnEnv(t, yaml, []upstreamtest.Round{textRound("c1", "Hi.")})
				readAll(t, e.do(t, http.MethodPost, "/v1/chat/completions", toolRequest))
				b := e.up.Requests()[0].Body
				if mode == "text" {
					sys = len(systemPrompt(t, b))
				}
				return len(b), sys
			}
			allBody, allSys := size("  tool_search_threshold: 0\n")
			searchBody, searchSys := size("")
			if mode == "text" {
				t.Logf("%3d tools, text:   round-1 body %6d → %5d bytes, system prompt %6d → %5d bytes", n, allBody, searchBody, allSys, searchSys)
			} else {
				t.Logf("%3d tools, native: round-1 body %6d → %5d bytes", n, allBody, searchBody)
			}
			if searchBody*4 > allBody {
				t.Errorf("%d tools, %s: the search's round 1 is %d bytes, not far below %d", n, mode, searchBody, allBody)
			}
		}
	}
}
