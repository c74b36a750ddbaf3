// Package demo is `toolstream demo`: a scripted model and the example task
// board on loopback, the proxy in front of them, one conversation sent
// through it, and what the client sees printed as it arrives.
package demo

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// modelName is what the scripted model calls itself.
const modelName = "demo-model"

// titles are the tasks the scripted model creates.
var titles = []string{"Buy groceries", "Call the plumber", "Renew my passport"}

// script is the scripted model. It knows no tools natively: like a small
// local model in text mode, it writes its calls as hermes <tool_call>
// blocks. Before any tool result is in its history it announces what it
// will do and writes one call per task; once results are in, it answers
// from them. Its text comes in token-sized chunks, so markers arrive split
// across chunks as they do from real servers.
func script(req upstreamtest.Request) upstreamtest.Round {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req.Body, &body)
	last := ""
	if n := len(body.Messages); n > 0 {
		last = fmt.Sprint(body.Messages[n-1].Content)
	}
	id := "chatcmpl-demo" + fmt.Sprint(time.Now().UnixNano()%1e6)
	var text string
	switch {
	case strings.Contains(last, "<tool_response>"):
		text = answer(last)
	case !asksForTasks(last):
		text = plainReply
	default:
		tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
		var b strings.Builder
		b.WriteString("Sure — I'll put those three on your board for tomorrow.\n")
		for i, t := range titles {
			args, _ := json.Marshal(struct {
				Title    string `json:"title"`
				Due      string `json:"due"`
				Priority int    `json:"priority"`
			}{t, tomorrow, i + 1})
			fmt.Fprintf(&b, "<tool_call>\n{\"name\": \"create_task\", \"arguments\": %s}\n</tool_call>\n", args)
		}
		text = b.String()
	}
	events := upstreamtest.Text(id, modelName, tokens(text)...)
	events = append(events, upstreamtest.Usage(id, modelName, 180+len(last)/4, len(text)/4))
	return upstreamtest.Round{Events: events}
}

// plainReply is the answer to a prompt the script has no part for: the
// demo is a playground any client can be pointed at, and it should say
// what it can do rather than pretend.
const plainReply = "Hello! I'm toolstream's scripted demo model, so I only know one trick: " +
	"ask me to create some tasks (\"Create three tasks for tomorrow\") and watch me call " +
	"the task board's tools through the proxy, with the tool activity in the stream."

var taskWords = regexp.MustCompile(`(?i)\b(tasks?|to-?dos?|board|remind(er)?s?)\b`)

// asksForTasks reports whether a prompt is about the task board.
func asksForTasks(prompt string) bool { return taskWords.MatchString(prompt) }

var resultRE = regexp.MustCompile(`"content":\{[^{}]*"id":(\d+)[^{}]*"title":"([^"]*)"[^{}]*"due":"([^"]*)"`)

// answer reads the task board's replies out of the results message.
func answer(results string) string {
	m := resultRE.FindAllStringSubmatch(results, -1)
	if len(m) == 0 {
		return "I could not create the tasks: the task board did not answer as expected."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Done! I created %d tasks for tomorrow (%s):\n", len(m), m[0][3])
	for _, t := range m {
		fmt.Fprintf(&b, "- #%s %s\n", t[1], t[2])
	}
	b.WriteString("Anything else?")
	return b.String()
}

// tokens cuts text into pieces of 1 to 6 bytes, rune-aligned, the way a
// model streams tokens; the pattern is fixed so every run looks the same.
func tokens(text string) []string {
	var out []string
	sizes := []int{3, 5, 1, 6, 2, 4}
	for i := 0; text != ""; i++ {
		n := min(sizes[i%len(sizes)], len(text))
		for n < len(text) && !isRuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
