package responses

import (
	"encoding/json"

	"github.com/toolstream/toolstream/proxy/internal/chatbody"
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

// checkOverrides runs the chat route's reader over raw
// (chatbody.CheckOverrides), and returns its refusal as an *[Error].
func checkOverrides(raw json.RawMessage) error {
	return chatbody.CheckOverrides(raw, func(param, msg string) error { return &Error{Param: param, Message: msg} })
}
