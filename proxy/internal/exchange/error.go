package exchange

import (
	"net/http"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/loop/jsonread"
)

// Error is an error in OpenAI's shape, ready to be written as an HTTP
// body or as an in-band stream event. The proxy decides it for every
// error (toAPIError); a protocol with another shape maps it to its own.
type Error struct {
	Status  int
	Type    string
	Code    string // "" is written as null
	Param   string // "" is written as null
	Message string
	// Raw, when set, is an upstream's own OpenAI-shaped body, relayed as
	// it came.
	Raw []byte
	// Header holds upstream headers to relay (Retry-After, rate limits).
	Header http.Header
}

// Body returns the JSON body {"error":{…}}.
func (e Error) Body() []byte {
	if e.Raw != nil {
		return e.Raw
	}
	type inner struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	in := inner{Message: e.Message, Type: e.Type}
	if e.Param != "" {
		in.Param = &e.Param
	}
	if e.Code != "" {
		in.Code = &e.Code
	}
	// Not json.Marshal: its HTML escaping would turn the 401's "Bearer
	// <key>" into "Bearer \u003ckey\u003e" for the person reading it.
	b, _ := jsonread.Marshal(struct {
		Error inner `json:"error"`
	}{in})
	return b
}

// Parts are an error's code and message for an in-band error event: the
// code, or the type when it has none; an upstream's own body is read for
// them.
func (e Error) Parts() (code, message string) {
	code, message = e.Code, e.Message
	if e.Raw != nil {
		if v, err := fastjson.ParseBytes(e.Raw); err == nil {
			message = string(v.GetStringBytes("error", "message"))
			code = string(v.GetStringBytes("error", "code"))
			if code == "" {
				code = string(v.GetStringBytes("error", "type"))
			}
		}
	}
	if code == "" {
		code = e.Type
	}
	if code == "" {
		code = UpstreamType(e.Status)
	}
	return code, message
}

// UpstreamType is OpenAI's error type for a status.
func UpstreamType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
