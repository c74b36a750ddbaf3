package detect_test

import (
	"testing"

	"github.com/toolstream/toolstream/loop/detect"
)

// TestBlankLinesAfterRemoval holds rule 3: removing a block leaves no
// trace in the blank lines around it — at most one blank line where it
// stood — while the line breaks before a block go out as they come (a
// block cannot be foreseen) and only those after it wait.
func TestBlankLinesAfterRemoval(t *testing.T) {
	w := call(detect.Hermes, "get_weather", `{"city":"Paris"}`, weather)
	rm := `<tool_call>{"name": "rm", "arguments": {}}</tool_call>`
	runSteps(t, []stepCase{
		{
			name: "a paragraph on each side: one blank line, not three",
			opts: hermesTaught,
			steps: []step{
				feed("Sure.\n\n", "Sure.\n\n"),
				feed(weather, "", w),
				feed("\n", ""),
				feed("\nLet me know.", "Let me know."),
				end(""),
			},
		},
		{
			name:  "a line break on each side is kept as written",
			opts:  hermesTaught,
			steps: []step{feed("Sure.\n"+weather+"\nDone.", "Sure.\n\nDone.", w), end("")},
		},
		{
			name:  "line breaks the text had before the block stay; none are added after",
			opts:  hermesTaught,
			steps: []step{feed("Sure.\n\n\n"+weather+"\n\nDone.", "Sure.\n\n\nDone.", w), end("")},
		},
		{
			name:  "a block first: at most one blank line before the text",
			opts:  hermesTaught,
			steps: []step{feed(weather+"\n\n\n\nDone.", "\n\nDone.", w), end("")},
		},
		{
			name:  "two blocks in one run of blank lines",
			opts:  hermesTaught,
			steps: []step{feed("A\n\n"+weather+"\n\n"+weather+"\n\nB", "A\n\nB", w, w), end("")},
		},
		{
			name:  "the indent of the next line is kept",
			opts:  hermesTaught,
			steps: []step{feed("A\n\n"+weather+"\n \n\n  - item", "A\n\n  - item", w), end("")},
		},
		{
			name:  "CRLF line breaks",
			opts:  hermesTaught,
			steps: []step{feed("A\r\n\r\n"+weather+"\r\n\r\nB", "A\r\n\r\nB", w), end("")},
		},
		{
			name:  "blank lines after a block at the end of the reply",
			opts:  hermesTaught,
			steps: []step{feed("A\n\n"+weather+"\n\n", "A\n\n", w), end("")},
		},
		{
			name:  "a block that stays text keeps its blank lines",
			opts:  native,
			steps: []step{feed("A\n\n"+rm+"\n\nB", "A\n\n"+rm+"\n\nB"), end("")},
		},
		{
			name:  "an unclosed block at the end",
			opts:  hermesTaught,
			steps: []step{feed("A\n\n<tool_call>\n{\"name\": \"search\"", "A\n\n"), end("", errCall(detect.Hermes, "search", "<tool_call>\n{\"name\": \"search\"", detect.ErrUnclosed))},
		},
	})
}
