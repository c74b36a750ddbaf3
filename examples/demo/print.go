package demo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// printer renders a chat-completions stream for a person: the assistant's
// text as it streams, tool activity on lines of its own, and at the end a
// check of the stream contract (one id, role once, one finish, one [DONE]).
type printer struct {
	out io.Writer
	raw bool
	// base is the proxy's API base URL, for the approve command.
	base string
	// hinted: the hint to start the tool servers was printed.
	hinted bool

	atLineStart bool
	// pending is whitespace held back: between tool blocks a model writes
	// newlines that would only push the tool lines apart.
	pending  string
	ids      map[string]bool
	chunks   int
	roles    int
	finishes []string
	done     int
	rounds   int
	calls    int
	usage    *struct{ Prompt, Completion int }
}

func newPrinter(out io.Writer, raw bool, base string) *printer {
	return &printer{out: out, raw: raw, base: base, atLineStart: true, ids: map[string]bool{}, rounds: 1}
}

type chunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
	} `json:"usage"`
	Error      json.RawMessage `json:"error"`
	Toolstream *struct {
		Event      string          `json:"event"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Round      int             `json:"round"`
		Status     string          `json:"status"`
		Result     json.RawMessage `json:"result"`
		Error      *struct{ Code, Message string }
		DurationMS int64      `json:"duration_ms"`
		ActionID   string     `json:"action_id"`
		ExpiresAt  *time.Time `json:"expires_at"`
		Decision   string     `json:"decision"`
		Reason     string     `json:"reason"`
	} `json:"toolstream"`
}

// read consumes the stream until it ends.
func (p *printer) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if p.raw && line != "" {
			fmt.Fprintln(p.out, line)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			p.done++
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return fmt.Errorf("a chunk is not JSON: %v", err)
		}
		if c.Error != nil {
			return fmt.Errorf("the stream ended with an error: %s", c.Error)
		}
		p.chunk(&c)
	}
	return sc.Err()
}

func (p *printer) chunk(c *chunk) {
	p.chunks++
	p.ids[c.ID] = true
	if c.Usage != nil {
		p.usage = &struct{ Prompt, Completion int }{c.Usage.Prompt, c.Usage.Completion}
	}
	for _, ch := range c.Choices {
		if ch.Delta.Role != "" {
			p.roles++
		}
		if ch.Delta.Content != "" {
			p.text(ch.Delta.Content)
		}
		if ch.FinishReason != nil {
			p.finishes = append(p.finishes, *ch.FinishReason)
		}
	}
	if ev := c.Toolstream; ev != nil && !p.raw {
		switch ev.Event {
		case "tool.started":
			p.calls++
			p.line(fmt.Sprintf("  ⚙ %s %s", ev.Name, ev.Arguments))
		case "tool.finished":
			if ev.Error != nil {
				p.line(fmt.Sprintf("  ✗ %s → %s: %s (%d ms)", ev.Name, ev.Error.Code, ev.Error.Message, ev.DurationMS))
				if strings.Contains(ev.Error.Message, "connection refused") && !p.hinted {
					// The tool servers of -tools are the user's to start.
					p.hinted = true
					p.line("  hint: " + serveHint)
				}
			} else {
				p.line(fmt.Sprintf("  ✓ %s → %s (%d ms)", ev.Name, ev.Result, ev.DurationMS))
			}
		case "approval.requested":
			p.approval(ev.Name, ev.ActionID, ev.ExpiresAt)
		case "approval.resolved":
			why := ""
			if ev.Reason != "" {
				why = ": " + ev.Reason
			}
			p.line(fmt.Sprintf("  ▸ %s %s%s", ev.Name, ev.Decision, why))
		case "round.started":
			p.rounds = ev.Round
			p.line(fmt.Sprintf("  ↻ round %d", ev.Round))
		default:
			p.line("  · " + ev.Event)
		}
	} else if ev != nil && ev.Event == "round.started" {
		p.rounds = ev.Round
	} else if ev != nil && ev.Event == "tool.started" {
		p.calls++
	}
}

// approval says that a call waits for the user, and how to decide: the
// stream stays open, with keepalives, until someone does.
func (p *printer) approval(tool, action string, expires *time.Time) {
	until := ""
	if expires != nil {
		until = " until " + expires.Local().Format("15:04:05")
	}
	p.line(fmt.Sprintf("  ⏸ %s waits for your approval%s. In another terminal, approve it with\n"+
		"      curl -X POST %s/actions/%s/approve\n"+
		"    or refuse it with\n"+
		"      curl -X POST %s/actions/%s/deny -d '{\"reason\":\"not now\"}'",
		tool, until, p.base, action, p.base, action))
}

// text prints assistant text, prefixing a new paragraph. Whitespace at the
// end is held until more text follows, so newlines a model writes between
// tool blocks do not push the tool lines apart.
func (p *printer) text(s string) {
	if p.raw {
		return
	}
	p.pending += s
	body := strings.TrimRight(p.pending, " \n")
	if body == "" {
		return
	}
	p.pending = p.pending[len(body):]
	if p.atLineStart {
		fmt.Fprint(p.out, "assistant ▸ ")
		body = strings.TrimLeft(body, " \n")
	}
	fmt.Fprint(p.out, body)
	p.atLineStart = false
}

// line prints a line of its own, ending the text line first.
func (p *printer) line(s string) {
	p.pending = ""
	if !p.atLineStart {
		fmt.Fprintln(p.out)
	}
	fmt.Fprintln(p.out, s)
	p.atLineStart = true
}

// summary prints what was received and checks the stream contract.
func (p *printer) summary() error {
	if !p.atLineStart {
		fmt.Fprintln(p.out)
	}
	fmt.Fprintln(p.out)
	finish := strings.Join(p.finishes, ",")
	u := "none"
	if p.usage != nil {
		u = fmt.Sprintf("%d prompt + %d completion tokens, summed over the rounds", p.usage.Prompt, p.usage.Completion)
	}
	fmt.Fprintf(p.out, "── %s · %s · finish_reason %q · usage: %s\n", count(p.rounds, "round"), count(p.calls, "tool call"), finish, u)
	var ids []string
	for id := range p.ids {
		ids = append(ids, id)
	}
	ok := len(ids) == 1 && p.roles == 1 && len(p.finishes) == 1 && p.done == 1
	mark := "✓"
	if !ok {
		mark = "✗"
	}
	fmt.Fprintf(p.out, "── %s %d chunks under %d id (%s), role %d×, finish_reason %d×, [DONE] %d×\n",
		mark, p.chunks, len(ids), strings.Join(ids, ", "), p.roles, len(p.finishes), p.done)
	if !ok {
		return fmt.Errorf("the stream broke its contract")
	}
	return nil
}
