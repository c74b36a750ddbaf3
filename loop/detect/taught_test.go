package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestTaughtBlockIsACall holds rule 2: in the taught format (hermes, and
// hermes under auto) a block is a call or a PARSE_ERROR, never text the
// client reads. Prose naming the tag, a fenced example and other modes
// keep their text.
func TestTaughtBlockIsACall(t *testing.T) {
	words := "<tool_call>\nget weather for Paris please\n</tool_call>"
	broken := `<tool_call>{"name": "get_weather" "arguments" ::: {"city" "Paris"</tool_call>`
	example := "```\n<tool_call>\nyour call here\n</tool_call>\n```\n"
	var cases []stepCase
	for _, o := range []struct {
		name string
		opts detect.Options
	}{{"hermes", hermesTaught}, {"auto", autoOpts}} {
		cases = append(cases,
			stepCase{
				name: o.name + ": a body of words is a PARSE_ERROR",
				opts: o.opts,
				steps: []step{
					feed("Let me check.\n<tool_call>\nget weather", "Let me check.\n"),
					feed(" for Paris please\n</tool_call>\nDone.", "\nDone.", errCall(detect.Hermes, "", words, detect.ErrMalformed)),
					end(""),
				},
			},
			stepCase{
				name:  o.name + ": JSON no repair can read is a PARSE_ERROR",
				opts:  o.opts,
				steps: []step{feed(broken, "", errCall(detect.Hermes, "get_weather", broken, detect.ErrMalformed)), end("")},
			},
			stepCase{
				name:  o.name + ": an unclosed body of words is a PARSE_ERROR at the end",
				opts:  o.opts,
				steps: []step{feed("<tool_call>\nget weather", ""), end("", errCall(detect.Hermes, "", "<tool_call>\nget weather", detect.ErrUnclosed))},
			},
			stepCase{
				name:  o.name + ": prose naming the tag on its line stays prose",
				opts:  o.opts,
				steps: []step{feed("Wrap it in <tool_call> tags, then stop.", "Wrap it in <tool_call> tags, then stop."), end("")},
			},
			stepCase{
				name:  o.name + ": a fenced example stays code",
				opts:  o.opts,
				steps: []step{feed(example, example), end("")},
			},
		)
	}
	unknown := `<tool_call>{"name": "weather_now" "arguments" ::: {"city" "Paris"</tool_call>`
	cases = append(cases, stepCase{
		name:  "auto: unreadable JSON naming an unknown tool is a PARSE_ERROR",
		opts:  autoOpts,
		steps: []step{feed(unknown, "", errCall(detect.Hermes, "weather_now", unknown, detect.ErrMalformed)), end("")},
	}, stepCase{
		name:  "native mode: nothing is taught, a body of words is text",
		opts:  native,
		steps: []step{feed(words, words), end("")},
	})
	runSteps(t, cases)
}
