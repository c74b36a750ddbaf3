package responses

import (
	"strconv"
	"unicode/utf8"
)

// The events a response streams, one struct per shape. Each starts with
// type and sequence_number, as OpenAI writes them.

type responseEvent struct {
	Type     string    `json:"type"`
	Seq      int       `json:"sequence_number"`
	Response *Response `json:"response"`
}

type itemEvent struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	OutputIndex int    `json:"output_index"`
	Item        any    `json:"item"`
}

type partEvent struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Part         any    `json:"part"`
}

type outputTextDone struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
	Logprobs     []any  `json:"logprobs"`
}

type reasoningTextDone struct {
	Type         string `json:"type"`
	Seq          int    `json:"sequence_number"`
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Text         string `json:"text"`
}

type argumentsDone struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
	Arguments   string `json:"arguments"`
}

// callEvent is response.mcp_call.in_progress, .completed or .failed.
type callEvent struct {
	Type        string `json:"type"`
	Seq         int    `json:"sequence_number"`
	ItemID      string `json:"item_id"`
	OutputIndex int    `json:"output_index"`
}

// errorEvent is the stream's last event when the turn failed after it
// started. Code and Param are null when not known.
type errorEvent struct {
	Type    string  `json:"type"`
	Seq     int     `json:"sequence_number"`
	Code    *string `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// toolstreamEvent carries one of the turn's own events (the chat route's
// "toolstream" extension object) to a client that asked for them;
// ItemID names the mcp_call item of the call it is about.
type toolstreamEvent struct {
	Type       string `json:"type"`
	Seq        int    `json:"sequence_number"`
	ItemID     string `json:"item_id,omitempty"`
	Toolstream any    `json:"toolstream"`
}

// appendDelta appends a delta event without encoding/json: the event
// every token of text, reasoning or client-call arguments becomes, so it
// costs no reflection and no allocation beyond dst's growth. With
// content set it is a text delta (content_index 0; logprobs for
// output_text), without it a function_call_arguments delta:
//
//	{"type":"response.output_text.delta","sequence_number":7,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel","logprobs":[]}
func appendDelta(dst []byte, typ string, seq int, itemID string, index int, content bool, delta string) []byte {
	dst = appendHead(dst, typ, seq)
	dst = appendItemRef(dst, itemID, index, content)
	dst = append(dst, `,"delta":`...)
	dst = appendString(dst, delta)
	if typ == evTextDelta {
		dst = append(dst, `,"logprobs":[]`...)
	}
	return append(dst, '}')
}

// The events of a turn's plain text — a message item opened, its text,
// its closing — and the response object are written by hand as well,
// byte for byte as encoding/json writes the structs above (HTML escaping
// off): every answer sends them, and encoding/json's reflection and its
// compacting of every json.RawMessage, the response's output included,
// each time, cost more than the answer's deltas. TestHandWritten holds
// them to encoding/json.

// appendHead starts an event: its type and sequence_number. typ is one of
// the encoder's own event types, which need no escaping.
func appendHead(dst []byte, typ string, seq int) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","sequence_number":`...)
	return strconv.AppendInt(dst, int64(seq), 10)
}

// appendItemRef appends the item an event is about: item_id,
// output_index, and content_index 0 when content is set.
func appendItemRef(dst []byte, itemID string, index int, content bool) []byte {
	dst = append(dst, `,"item_id":`...)
	dst = appendString(dst, itemID)
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	if content {
		dst = append(dst, `,"content_index":0`...)
	}
	return dst
}

// appendRaw appends a value that is JSON already, as encoding/json writes
// a json.RawMessage: null when there is none. raw must be compact:
// encoding/json would compact it, this does not.
func appendRaw(dst []byte, raw []byte) []byte {
	if len(raw) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}

// appendOutputText appends an output_text content part (outputText).
func appendOutputText(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"output_text","text":`...)
	dst = appendString(dst, text)
	return append(dst, `,"annotations":[],"logprobs":[]}`...)
}

// appendMessageItem appends a message item (messageItem) of the
// assistant: without content while in progress (part false), with its one
// output_text part once done.
func appendMessageItem(dst []byte, id, status string, part bool, text string) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, id)
	dst = append(dst, `,"type":"message","status":`...)
	dst = appendString(dst, status)
	dst = append(dst, `,"role":"assistant","content":[`...)
	if part {
		dst = appendOutputText(dst, text)
	}
	return append(dst, "]}"...)
}

// appendItemEvent appends response.output_item.added or .done (itemEvent)
// for the item whose JSON is item.
func appendItemEvent(dst []byte, typ string, seq, index int, item []byte) []byte {
	dst = appendHead(dst, typ, seq)
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, `,"item":`...)
	dst = append(dst, item...)
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// plain8 reports whether each of the eight bytes of w is ASCII written as
// itself in a JSON string: no control character, quote or backslash, and
// no high bit. Each test is exact for the word as a whole ("Bit Twiddling
// Hacks": hasless, haszero).
func plain8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	ctl := (w - 0x20*ones) &^ w // a byte below 0x20
	q := w ^ '"'*ones
	quote := (q - ones) &^ q // a byte that was '"'
	bs := w ^ '\\'*ones
	backslash := (bs - ones) &^ bs // a byte that was '\'
	return (ctl|quote|backslash|w)&highs == 0
}

// appendString appends s as a JSON string exactly as encoding/json
// writes it with HTML escaping off: quotes, backslashes and control
// characters escaped (\b \f \n \r \t by name), U+2028 and U+2029 escaped,
// invalid UTF-8 replaced by U+FFFD. FuzzAppendString holds it to
// encoding/json.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look: text is
		// mostly plain ASCII.
		for i+8 <= len(s) && plain8(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
		}
		if i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
