package messages

import (
	"github.com/toolstream/toolstream/loop/jsonread"
	"github.com/toolstream/toolstream/proxy/internal/chatbody"
)

// object is a JSON object read one level deep (see jsonread).
type object = jsonread.Object

// read phrases a wrong value as Anthropic's API does: "messages: Input
// should be an array, not a string".
var read = jsonread.Reader{
	Invalid: func(param, want, got string) error {
		if got == "" {
			return invalid(param, "Input should be %s", want)
		}
		return invalid(param, "Input should be %s, not %s", want, got)
	},
	Count: "an integer of at least 1",
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
func refuseBody(param, msg string) error { return invalid(param, "%s", msg) }
