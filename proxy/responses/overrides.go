package responses

import (
	"encoding/json"
	"errors"

	"github.com/toolstream/toolstream/loop"
)

// readToolstream takes the request's "toolstream" object (the per-request
// overrides) into the chat body as it came, less "events": that key only
// says which events a Responses client wants, and is kept in
// [Request.Events]. The rest is checked by the chat route's own reader,
// so a bad override gets the same 400 on every route.
func (r *Request) readToolstream(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	raw = compact(raw)
	if o, err := readObject(raw, "toolstream"); err == nil {
		if ev, ok := o["events"]; ok {
			b, err := readBool(ev, "toolstream.events")
			if err != nil {
				return err
			}
			r.Events = b != nil && *b
			delete(o, "events")
			if raw, err = marshal(o); err != nil {
				return err
			}
		}
		if len(o) == 0 {
			return nil
		}
	}
	if err := checkOverrides(raw); err != nil {
		return err
	}
	r.chat.Toolstream = raw
	return nil
}

// checkOverrides runs the chat route's reader over a minimal body holding
// raw as its toolstream object, and returns its refusal as an *[Error].
func checkOverrides(raw json.RawMessage) error {
	body, err := marshal(struct {
		Model      string            `json:"model"`
		Messages   []json.RawMessage `json:"messages"`
		Toolstream json.RawMessage   `json:"toolstream"`
	}{"m", []json.RawMessage{json.RawMessage(`{"role":"user","content":""}`)}, raw})
	if err != nil {
		return err
	}
	_, err = loop.ParseRequest(body)
	var re *loop.RequestError
	if errors.As(err, &re) {
		return &Error{Param: re.Param, Message: re.Message}
	}
	return err
}
