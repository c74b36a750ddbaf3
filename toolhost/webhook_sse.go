package toolhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
)

// fieldSlack is how far past max_result_bytes a line may run before the
// rest of it is dropped unread: room for the field name and for a
// progress or error event, which are small.
const fieldSlack = 4 << 10

// isEventStream reports a webhook answer in Server-Sent Events
// (docs/webhooks.md, "Progress").
func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// progressData is the data of an "event: progress"; it converts to a
// [ProgressUpdate].
type progressData struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// readEvents reads a webhook's event-stream answer:
//
//	event: progress
//	data: {"progress":1,"total":3,"message":"resizing"}
//
//	event: result
//	data: {"url":"https://…/avatar.png"}
//
// Each progress event is reported to the call's listener; the result
// event's data is the result, shaped and cut at max_result_bytes like a
// plain body; an error event ({"message":…}) is an EXECUTION_FAILED the
// model reads. A stream that ends without either is EXECUTION_FAILED, one
// cut by the tool's timeout TIMEOUT. Other event types are ignored, so a
// webhook may send more than toolstream reads today.
func (w *webhook) readEvents(ctx context.Context, call Call, body io.Reader) Outcome {
	r := newSSEReader(body, w.maxResult)
	for {
		ev, err := r.next()
		if err != nil {
			if ctx.Err() != nil {
				return contextOutcome(ctx, "the webhook", w.timeout)
			}
			if errors.Is(err, io.EOF) {
				return Failure(CodeExecutionFailed, "the webhook's event stream ended without a result")
			}
			return netFailure("reading the webhook's event stream", err)
		}
		switch ev.typ {
		case "progress":
			var p progressData
			if json.Unmarshal(ev.data, &p) == nil {
				ReportProgress(call, ProgressUpdate(p))
			}
		case "result":
			return shapeResult(ev.data, w.maxResult, "")
		case "error":
			var e struct {
				Message string `json:"message"`
			}
			msg := "the webhook reported an error"
			if json.Unmarshal(ev.data, &e) == nil && e.Message != "" {
				msg += ": " + excerpt(bytes.NewReader([]byte(e.Message)))
			}
			return Failure(CodeExecutionFailed, msg)
		}
	}
}

// sseEvent is one event of a stream: its type and its data, the data
// lines joined by "\n".
type sseEvent struct {
	typ  string
	data []byte
}

// sseReader parses Server-Sent Events as the HTML standard's event-stream
// interpretation does: lines end in CRLF, LF or CR; a line starting with
// ":" is a comment; "field: value" loses one space after the colon;
// "data" lines accumulate, "event" names the type; a blank line dispatches
// the event, unless it had no data. An event not closed by a blank line
// when the stream ends is dropped, as browsers drop it: a cut answer must
// not pass for a whole one.
//
// It keeps at most max+1 bytes of an event's data (max_result_bytes: one
// more says it was over) and drops the rest as it reads, so a webhook
// cannot make toolstream hold more than that.
type sseReader struct {
	br  *bufio.Reader
	max int
	// crlf: the last line ended in CR, so an LF that follows is part of
	// that line ending, not an empty line.
	crlf bool
	line []byte
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{br: bufio.NewReader(r), max: max}
}

// next returns the next event; io.EOF when the stream ended between
// events (or inside one, which is dropped).
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF // a last line with no ending: dropped with its event
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if hasData {
				ev.data = bytes.TrimSuffix(ev.data, []byte{'\n'})
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, found := bytes.Cut(line, []byte{':'})
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			ev.typ = string(value)
		case "data":
			hasData = true
			ev.data = appendCapped(ev.data, value, r.max+1)
			ev.data = appendCapped(ev.data, []byte{'\n'}, r.max+1)
		}
	}
}

// appendCapped appends b to dst without letting dst grow past n bytes.
func appendCapped(dst, b []byte, n int) []byte {
	if room := n - len(dst); room < len(b) {
		b = b[:max(room, 0)]
	}
	return append(dst, b...)
}

// readLine returns the next line without its ending, cut at
// max+fieldSlack bytes (the rest is read and dropped). The slice is valid
// until the next call. A stream that ends inside a line returns
// io.ErrUnexpectedEOF; one that ends at a line's start io.EOF.
func (r *sseReader) readLine() ([]byte, error) {
	limit := r.max + fieldSlack
	r.line = r.line[:0]
	started := false
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && started {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if r.crlf {
			r.crlf = false
			if c == '\n' {
				continue // the LF of a CRLF
			}
		}
		switch c {
		case '\n':
			return r.line, nil
		case '\r':
			r.crlf = true
			return r.line, nil
		}
		started = true
		if len(r.line) < limit {
			r.line = append(r.line, c)
		}
	}
}
