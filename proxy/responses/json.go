package responses

import (
	"github.com/toolstream/toolstream/loop/jsonread"
	"github.com/toolstream/toolstream/proxy/internal/chatbody"
)

// object is a JSON object read one level deep (see jsonread).
type object = jsonread.Object

// read phrases a wrong value as OpenAI's API does: "input must be an
// array, not a string".
var read = jsonread.Reader{
	Invalid: func(param, want, got string) error {
		if got == "" {
			return invalid(param, "%s must be %s", param, want)
		}
		return invalid(param, "%s must be %s, not %s", param, want, got)
	},
	Count: "a positive integer",
}

var (
	isNull     = jsonread.IsNull
	kind       = jsonread.Kind
	compact    = jsonread.Compact
	marshal    = jsonread.Marshal
	readObject = read.Object
	readArray  = read.Array
	readString = read.String
	readBool   = read.Bool
	readNumber = read.Number
	readCount  = read.PositiveInt
)

// readBody reads the request body as every route does
// (chatbody.ReadBody): one JSON object, each top-level key once; a key
// written twice is named.
func readBody(body []byte) (object, error) {
	return chatbody.ReadBody(body, refuseBody)
}

// refuseBody is the refusal of a body that is not one JSON object.
func refuseBody(param, msg string) error { return &Error{Param: param, Message: msg} }
