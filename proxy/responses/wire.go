package responses

import (
	"strconv"

	"github.com/toolstream/toolstream/loop/chunk"
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
	return appendDeltaEvent(dst, newDeltaKind(typ), false, seq, deltaRef(itemID, index, content), delta)
}

// deltaKind is one type of delta event, with what every event of it
// starts and ends with made once, framed (see frameWriter) and not.
type deltaKind struct {
	name string
	// head is the frame's "event:" line, "data: ", and the JSON up to
	// the sequence number's value, which starts at data.
	head string
	data int
	// tail ends the JSON, and the frame.
	tail string
}

func newDeltaKind(name string) *deltaKind {
	event := "event: " + name + "\ndata: "
	tail := "}"
	if name == evTextDelta {
		tail = `,"logprobs":[]}`
	}
	return &deltaKind{name: name, head: event + `{"type":"` + name + `","sequence_number":`, data: len(event), tail: tail + "\n\n"}
}

// The delta events.
var (
	textDelta      = newDeltaKind(evTextDelta)
	reasoningDelta = newDeltaKind(evReasoningDelta)
	argsDelta      = newDeltaKind(evArgsDelta)
)

// appendDeltaEvent is appendDelta for a delta of kind k, with the item's
// part of the event made once per item (deltaRef), not once per token;
// framed, it is the whole frame.
func appendDeltaEvent(dst []byte, k *deltaKind, framed bool, seq int, ref string, delta string) []byte {
	var d [20]byte
	return appendDeltaDigits(dst, k, framed, strconv.AppendInt(d[:0], int64(seq), 10), ref, delta)
}

// appendDeltaDigits is appendDeltaEvent with the sequence number in
// decimal already (see seqDigits).
func appendDeltaDigits(dst []byte, k *deltaKind, framed bool, seq []byte, ref string, delta string) []byte {
	head, tail := k.head, k.tail
	if !framed {
		head, tail = head[k.data:], tail[:len(tail)-2]
	}
	dst = append(dst, head...)
	dst = append(dst, seq...)
	dst = append(dst, ref...)
	dst = chunk.AppendJSONString(dst, delta)
	return append(dst, tail...)
}

// deltaRef is what every delta event of an item says between its head and
// its delta: the item's appendItemRef and the delta's key.
func deltaRef(itemID string, index int, content bool) string {
	var b [128]byte
	return string(append(appendItemRef(b[:0], itemID, index, content), `,"delta":`...))
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
	dst = chunk.AppendJSONString(dst, itemID)
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
	dst = chunk.AppendJSONString(dst, text)
	return append(dst, `,"annotations":[],"logprobs":[]}`...)
}

// appendMessageItem appends a message item (messageItem) of the
// assistant: without content while in progress (part false), with its one
// output_text part once done.
func appendMessageItem(dst []byte, id, status string, part bool, text string) []byte {
	dst = appendMessageHead(dst, id, status)
	if part {
		dst = appendOutputText(dst, text)
	}
	return append(dst, "]}"...)
}

// appendMessageHead appends a message item up to its content's first
// part.
func appendMessageHead(dst []byte, id, status string) []byte {
	dst = append(dst, `{"id":`...)
	dst = chunk.AppendJSONString(dst, id)
	dst = append(dst, `,"type":"message","status":`...)
	dst = chunk.AppendJSONString(dst, status)
	return append(dst, `,"role":"assistant","content":[`...)
}

// doneMessage is a completed message item's JSON (appendMessageItem) and
// the parts of it that the events closing the item repeat: its
// output_text part and that part's text, as JSON. They are views of
// item: the text, the largest thing a plain answer sends, is escaped
// once for all of them.
type doneMessage struct {
	item, part, text []byte
}

func newDoneMessage(id, text string) doneMessage {
	b := appendMessageHead(make([]byte, 0, len(text)+len(id)+160), id, StatusCompleted)
	part := len(b)
	b = append(b, `{"type":"output_text","text":`...)
	start := len(b)
	b = chunk.AppendJSONString(b, text)
	end := len(b)
	b = append(b, `,"annotations":[],"logprobs":[]}`...)
	partEnd := len(b)
	b = append(b, "]}"...)
	return doneMessage{item: b, part: b[part:partEnd], text: b[start:end]}
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

// seqDigits is a sequence number in decimal, kept from one delta event to
// the next: the next number's digits are the last's plus one, mostly in
// the last digit alone, which costs less than writing a number anew.
type seqDigits struct {
	n   int
	d   [20]byte
	len int
}

// of returns n in decimal, valid until the next call.
func (s *seqDigits) of(n int) []byte {
	if n != s.n+1 || s.len == 0 {
		s.n, s.len = n, len(strconv.AppendInt(s.d[:0], int64(n), 10))
		return s.d[:s.len]
	}
	s.n = n
	d := s.d[:s.len]
	i := len(d) - 1
	for i >= 0 && d[i] == '9' {
		d[i] = '0'
		i--
	}
	if i < 0 { // 9…9 + 1: one digit more
		s.len = len(strconv.AppendInt(s.d[:0], int64(n), 10))
		return s.d[:s.len]
	}
	d[i]++
	return d
}
