// Package demo is `toolstream demo`: a scripted model and the example tool
// servers on loopback, the proxy in front of them, one conversation sent
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
// blocks, and only for tools the proxy taught it in the system prompt.
// Before any tool result is in its history it announces what it will do
// and writes its calls; once results are in, it answers from them. Its
// text comes in token-sized chunks, so markers arrive split across chunks
// as they do from real servers.
func script(req upstreamtest.Request) upstreamtest.Round {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(req.Body, &body)
	last, system := "", ""
	if n := len(body.Messages); n > 0 {
		last = fmt.Sprint(body.Messages[n-1].Content)
		if body.Messages[0].Role == "system" {
			system = fmt.Sprint(body.Messages[0].Content)
		}
	}
	taught := func(tool string) bool { return strings.Contains(system, tool) }
	id := "chatcmpl-demo" + fmt.Sprint(time.Now().UnixNano()%1e6)
	var text string
	switch {
	case strings.Contains(last, "<tool_response>"):
		text = answer(last)
	case cardWords.MatchString(last) && taught("create_card"):
		text = "I'll put that on the kanban board.\n" + toolCall("create_card", struct {
			Title  string `json:"title"`
			Column string `json:"column"`
		}{cardTitle(last), "todo"})
	case avatarWords.MatchString(last) && taught("expression") && taught("motion"):
		// Calls in the middle of a sentence, the way an avatar's gestures
		// go with the words.
		inline := func(name, arg string) string {
			return strings.TrimSuffix(toolCall(name, map[string]string{"name": arg}), "\n")
		}
		text = "Hi there! " + inline("expression", "smile") + "It's good to see you. " + inline("motion", "wave")
	case taskWords.MatchString(last) && taught("create_task"):
		tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
		var b strings.Builder
		b.WriteString("Sure — I'll put those three on your board for tomorrow.\n")
		for i, t := range titles {
			b.WriteString(toolCall("create_task", struct {
				Title    string `json:"title"`
				Due      string `json:"due"`
				Priority int    `json:"priority"`
			}{t, tomorrow, i + 1}))
		}
		text = b.String()
	default:
		text = plainReply
	}
	events := upstreamtest.Text(id, modelName, tokens(text)...)
	events = append(events, upstreamtest.Usage(id, modelName, 180+len(last)/4, len(text)/4))
	return upstreamtest.Round{Events: events}
}

// toolCall writes one call the hermes way.
func toolCall(name string, args any) string {
	a, _ := json.Marshal(args)
	return fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>\n", name, a)
}

// plainReply is the answer to a prompt the script has no part for: the
// demo is a playground any client can be pointed at, and it should say
// what it can do rather than pretend.
const plainReply = "Hello! I'm toolstream's scripted demo model, so I only know three tricks, " +
	"each calling the example tools through the proxy with the tool activity in the stream: " +
	"ask me to create some tasks (\"Create three tasks for tomorrow\"), to put a card on the " +
	"kanban board (\"Add a card 'Fix the login page'\"), or to wave at you."

var (
	taskWords   = regexp.MustCompile(`(?i)\b(tasks?|to-?dos?|board|remind(er)?s?)\b`)
	cardWords   = regexp.MustCompile(`(?i)\b(cards?|kanban)\b`)
	avatarWords = regexp.MustCompile(`(?i)\b(wave|waving|smile|avatar|greet)\b`)
	quotedRE    = regexp.MustCompile(`["'“‘]([^"'”’]+)["'”’]`)
)

// cardTitle is the first quoted phrase of the prompt, or a stock title.
func cardTitle(prompt string) string {
	if m := quotedRE.FindStringSubmatch(prompt); m != nil {
		return m[1]
	}
	return "Fix the login page"
}

var (
	taskResultRE = regexp.MustCompile(`"content":\{[^{}]*"id":(\d+)[^{}]*"title":"([^"]*)"[^{}]*"due":"([^"]*)"`)
	cardResultRE = regexp.MustCompile(`"content":\{[^{}]*"id":(\d+)[^{}]*"title":"([^"]*)"[^{}]*"column":"([^"]*)"`)
)

// answer reads the tools' replies out of the results message.
func answer(results string) string {
	if strings.Contains(results, `"motion":"wave"`) {
		return "\nAnything I can do for you today?"
	}
	if m := cardResultRE.FindStringSubmatch(results); m != nil {
		return fmt.Sprintf("Done: %q is card #%s in the %s column of the kanban board.", m[2], m[1], m[3])
	}
	m := taskResultRE.FindAllStringSubmatch(results, -1)
	if len(m) == 0 {
		return "That did not work: the tools did not answer as expected."
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
