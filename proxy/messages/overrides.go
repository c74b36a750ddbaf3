package messages

import (
	"encoding/json"

	"github.com/toolstream/toolstream/proxy/internal/chatbody"
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
	err := chatbody.CheckOverrides(raw, func(param, msg string) error { return &Error{Param: param, Message: msg} })
	if err != nil {
		return err
	}
	r.chat.Toolstream = compact(raw) // written as it is into Chat
	return nil
}
