package detect

import (
	"encoding/json"
	"strings"
)

// The harmony dialect (docs/tool-calls.md), as gpt-oss writes it when the
// server passes its special tokens on: a reply is a run of messages, each
// a header, <|message|>, its content and an end token,
//
//	<|channel|>analysis<|message|>User asks for the weather.<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//
// (the first <|start|>assistant is the prompt's, so the reply opens at
// <|channel|>). The header's channel says what the content is: analysis is
// reasoning, final the answer, commentary a preamble the user sees; a
// header with a recipient (to=functions.NAME, before or after the channel)
// makes the content a call, on any channel. Harmony is not a block inside
// prose but a structure around it, so the detector reads it with states of
// its own (harmonyscan.go) in the one state machine: a header is read to
// its end (stHeader); an analysis message streams out as reasoning
// (stReason, [Detector.Reasoning]); a final or commentary message is prose
// again (stText), where the end tokens are dropped; a call is a marker
// block (stBlock) whose markup is its header, its JSON and its end token.
//
// Quirks of real output, as Ollama's harmony parser, vLLM's and
// llama.cpp's gpt-oss parsers read them: the recipient before the channel
// (<|start|>assistant to=functions.NAME<|channel|>commentary), or as the
// very start of the reply when the prompt's <|start|>assistant is all the
// header had (" to=functions.NAME<|channel|>…"); <|constrain|> without the
// space before it, or left out; a word after the recipient ("json", "abc")
// ignored; a control token right after a name (NAME<|channel|>commentary
// is NAME); a call ended by <|end|> instead of <|call|>, or by the end of
// the reply once its JSON is whole (the server stopped at <|call|> and
// dropped it); a header without <|message|> ("<|channel|>final {…}"),
// whose content starts after its last word; a stray header before the
// real one (<|channel|>commentary to=assistant<|channel|>analysis: the
// last channel counts, and a message to=assistant is no call); the
// stripped form a server that drops special tokens writes
// ("analysisWe need…assistantfinalThe answer", and a call as
// "…assistantcommentary to=functions.NAME json{…}"), read at the start of
// a reply.
const (
	hmStart     = "<|start|>"
	hmChannel   = "<|channel|>"
	hmMessage   = "<|message|>"
	hmConstrain = "<|constrain|>"
	hmEnd       = "<|end|>"
	hmReturn    = "<|return|>"
	hmCall      = "<|call|>"

	// In a stripped reply "assistant" and a channel stand for a header:
	// hmFinalStripped ends the reasoning and starts the answer,
	// hmCommentaryStripped starts a header (a call's, or a preamble's).
	hmAssistant          = "assistant"
	hmFinalStripped      = "assistantfinal"
	hmCommentaryStripped = "assistantcommentary"
	// hmAnalysisStripped opens a stripped reply.
	hmAnalysisStripped = "analysis"

	// maxHeader bounds a header: a longer run is not one.
	maxHeader = 256
)

// hmChannels are the channels gpt-oss writes, longest first where one
// may run into the content of a header without <|message|>.
var hmChannels = []string{"analysis", "commentary", "final"}

// hmTokens are the tokens a header or a message's end may hold.
var hmTokens = []string{hmStart, hmChannel, hmMessage, hmConstrain, hmEnd, hmReturn, hmCall}

var (
	// synHarmonyHeader marks <|start|> and <|channel|>, which open a
	// header (scanHeader reads it, not a block).
	synHarmonyHeader = syntax{format: Harmony}
)

// hmCallSyntax is a call's block: its markup is the header (held before
// the body), the arguments and the end token. The block closes at "|>"
// outside the JSON's strings, the end of <|call|>, <|end|> or <|return|>;
// parse reads what the token was.
var hmCallSyntax = syntax{
	format:   Harmony,
	close:    "|>",
	fail:     kmp("|>"),
	jsonBody: jsonArgs,
	// In the taught format a header with a recipient is a call whatever
	// follows (rule 2); elsewhere decide leaves an unknown one as text.
	start: func(string) (int, int) { return startOK, 0 },
	end:   endWhen(hmComplete),
}

// header is a harmony message header.
type header struct {
	channel   string
	recipient string // as written: "functions.get_weather"; "" for none
	n         int    // where the content starts
	msg       bool   // the header ended at <|message|>
}

// What readHeader found.
const (
	hdrMore = iota // s ends before the header does
	hdrDone
	hdrNo // not a header
)

// readHeader reads the header s starts with: <|start|> and a role, or
// <|channel|>, or (implicit) the recipient of a reply whose header the
// prompt opened. It ends at <|message|>; at a token that is no part of a
// header (the header had no <|message|>); or, with no recipient, at the
// first word after the channel, where the content starts.
func readHeader(s string) (h header, res int) {
	i := 0
	if strings.HasPrefix(s, hmStart) {
		i = len(hmStart)
		j, r := nameEnd(s[i:])
		if r == startMore {
			return h, hdrMore
		}
		i += j // the role, "assistant"
	}
	for {
		if i > maxHeader {
			return h, hdrNo
		}
		j := skipSpaces(s, i)
		if j == len(s) {
			return h, hdrMore
		}
		rest := s[j:]
		switch {
		case rest[0] == '<':
			next, r := h.token(s, j)
			switch r {
			case hdrMore:
				return h, hdrMore
			case hdrDone:
				return h.done()
			}
			i = next
		case prefixRes(rest, "to=") != startNo:
			if len(rest) < 3 {
				return h, hdrMore
			}
			k := 3
			for k < len(rest) && !isBlank(rest[k]) && rest[k] != '<' && rest[k] != '{' {
				k++
			}
			if k == len(rest) {
				return h, hdrMore
			}
			h.recipient, i = rest[3:k], j+k
		case h.recipient != "" && rest[0] != '{':
			// A word after a recipient ("json" without its token, or
			// anything else): ignored, as Ollama ignores it.
			k := 0
			for k < len(rest) && !isBlank(rest[k]) && rest[k] != '<' && rest[k] != '{' {
				k++
			}
			if k == 0 {
				// A line break, which skipSpaces leaves: part of the
				// words ignored (the header read on would stop here).
				k = 1
			}
			if k == len(rest) {
				return h, hdrMore
			}
			i = j + k
		default:
			// Content without <|message|>: a call's JSON, or the
			// words of a final channel written without it.
			h.n = j
			return h.done()
		}
	}
}

// hdrNone says a token of the header was read and the header goes on.
const hdrNone = -1

// token reads the token at s[j] ('<'): the channel or the constraint
// (the header goes on at next, res hdrNone), <|message|> or any other
// token, where the header ends (hdrDone), or hdrMore.
func (h *header) token(s string, j int) (next, res int) {
	rest := s[j:]
	tok := ""
	for _, t := range hmTokens {
		if strings.HasPrefix(rest, t) {
			tok = t
			break
		}
		if len(rest) < len(t) && strings.HasPrefix(t, rest) {
			return 0, hdrMore
		}
	}
	switch tok {
	case hmMessage:
		h.n, h.msg = j+len(hmMessage), true
	case hmChannel:
		var more bool
		if h.channel, next, more = channelWord(s, j+len(hmChannel)); more {
			return 0, hdrMore
		}
		return next, hdrNone
	case hmConstrain:
		k, r := nameEnd(s[j+len(hmConstrain):])
		if r == startMore {
			return 0, hdrMore
		}
		return j + len(hmConstrain) + k, hdrNone
	default: // another token, or markup: the header ends here
		h.n = j
	}
	return 0, hdrDone
}

// done settles a header read to its end: a message to=assistant is
// addressed to the model, no call.
func (h header) done() (header, int) {
	if h.recipient == "assistant" {
		h.recipient = ""
	}
	if h.channel == "" && h.recipient == "" && !h.msg {
		return h, hdrNo
	}
	return h, hdrDone
}

// known reports whether the header says harmony on its own: a channel
// gpt-oss writes, or a recipient. A header with <|message|> and neither is
// harmony where harmony is read, and prose elsewhere.
func (h header) known() bool {
	if h.recipient != "" {
		return true
	}
	for _, c := range hmChannels {
		if h.channel == c {
			return true
		}
	}
	return false
}

// channelWord reads the channel name at s[i:]: its letters, or, when they
// run on into content without <|message|> between ("finalThe answer"),
// the channel gpt-oss writes they start with. more says s ends inside it.
func channelWord(s string, i int) (word string, end int, more bool) {
	k := i
	for k < len(s) && ('a' <= s[k] && s[k] <= 'z' || 'A' <= s[k] && s[k] <= 'Z' || s[k] == '_') {
		k++
	}
	w := s[i:k]
	for _, c := range hmChannels {
		if len(w) > len(c) && strings.HasPrefix(w, c) {
			return c, i + len(c), false
		}
	}
	if k == len(s) {
		return "", 0, true
	}
	return w, k, false
}

// hmName is the tool a recipient names: functions.NAME is NAME; the
// built-in tools' recipients (python, browser.search) are kept as they
// are.
func hmName(recipient string) string {
	return strings.TrimPrefix(recipient, "functions.")
}

// parseHarmony reads a call's body: its JSON arguments, then the end
// token the block closed at (or nothing, at the end of the reply).
func parseHarmony(name, body string) parsed {
	pr := parsed{name: name}
	args := strings.TrimRight(body, " \t\r\n")
	if k := strings.LastIndex(args, "<|"); k >= 0 && strings.IndexByte(args[k:], '"') < 0 {
		switch args[k:] {
		case "<|call", "<|end", "<|return":
			args = args[:k]
		default:
			pr.err = malformed("the call ended at %s, not at <|call|>", excerpt(args[k:]+"|>"))
			return pr
		}
	}
	if name == "" {
		pr.err = malformed("the recipient names no tool")
		return pr
	}
	a, err := jsonArguments(args)
	if err != nil {
		pr.err = err
		return pr
	}
	pr.calls = []Call{{Name: name, Arguments: a}}
	return pr
}

// hmComplete reports whether a call open at the end of the reply is
// whole: its JSON is complete, and the server dropped the <|call|> it
// stopped at.
func hmComplete(body string) bool {
	s := strings.TrimSpace(body)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}
