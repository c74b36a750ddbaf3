package chatbody

import (
	"encoding/json"
	"errors"

	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/loop/jsonread"
)

// Refuse makes a protocol's own error for a value it refuses: param is the
// field's path ("" for the body as a whole), message what is wrong.
type Refuse func(param, message string) error

// ReadBody reads a request body as every route does (jsonread.Body): one
// JSON object, each top-level key once. A body that is not one is
// refused in the protocol's words, the key written twice named.
func ReadBody(body []byte, refuse Refuse) (jsonread.Object, error) {
	top, err := jsonread.Body(body, 0)
	var be *jsonread.BodyError
	if errors.As(err, &be) {
		return nil, refuse(be.Key, be.Error())
	}
	return top, err
}

// CheckOverrides runs the chat route's own reader over a minimal body
// holding raw as its "toolstream" object (the per-request overrides), so a
// bad override gets the same words on every route; its refusal is made
// the protocol's error.
func CheckOverrides(raw json.RawMessage, refuse Refuse) error {
	body, err := jsonread.Marshal(struct {
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
		return refuse(re.Param, re.Message)
	}
	return err
}
