package messages

import (
	"encoding/json"
	"errors"

	"github.com/toolstream/toolstream/loop"
)

// readToolstream takes the request's "toolstream" object (the per-request
// overrides) into the chat body unchanged, after the chat route's own
// reader has checked it, so a bad override gets the same words on every
// route.
func (r *Request) readToolstream(raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	raw = compact(raw)
	body, err := marshal(struct {
		Model      string            `json:"model"`
		Messages   []json.RawMessage `json:"messages"`
		Toolstream json.RawMessage   `json:"toolstream"`
	}{"m", []json.RawMessage{json.RawMessage(`{"role":"user","content":""}`)}, raw})
	if err != nil {
		return err
	}
	if _, err := loop.ParseRequest(body); err != nil {
		var re *loop.RequestError
		if errors.As(err, &re) {
			return &Error{Param: re.Param, Message: re.Message}
		}
		return err
	}
	r.chat.Toolstream = compact(raw) // written as it is into Chat
	return nil
}
