package textmode

import (
	"strings"

	"github.com/toolstream/toolstream/toolhost"
)

// FoundHeading opens the section [Found] writes; a later turn finds the
// tools an earlier one found by it.
const FoundHeading = "# Tools found"

// Found is the section that teaches the tools a find_tools call found,
// written after the results of the round that found them. The system
// prompt stays as it was: a prompt that changed within a turn would make
// the upstream's prompt cache miss everything after it. Each tool is
// written as the prompt writes it.
//
//	# Tools found
//
//	You can call these tools from now on, like the tools in the system prompt and in the same syntax:
//
//	## send_invoice
//	…
func Found(tools []toolhost.Tool) string {
	if len(tools) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(FoundHeading + "\n\nYou can call these tools from now on, like the tools in the system prompt and in the same syntax:\n")
	for _, t := range tools {
		writeTool(&b, t)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// FoundNames are the tools a [Found] section in text teaches, in order.
func FoundNames(text string) []string {
	var names []string
	for {
		i := strings.Index(text, FoundHeading+"\n")
		if i < 0 {
			return names
		}
		text = text[i+len(FoundHeading):]
		// The section ends where a heading of its level or above begins.
		end := strings.Index(text, "\n# ")
		sec := text
		if end >= 0 {
			sec = text[:end]
		}
		for _, line := range strings.Split(sec, "\n") {
			if n, ok := strings.CutPrefix(line, "## "); ok {
				names = append(names, strings.TrimSpace(n))
			}
		}
	}
}
