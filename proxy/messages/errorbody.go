package messages

import "net/http"

// Anthropic's error types, as its API and SDKs name them.
const (
	TypeInvalidRequest  = "invalid_request_error"
	TypeAuthentication  = "authentication_error"
	TypeBilling         = "billing_error"
	TypePermission      = "permission_error"
	TypeNotFound        = "not_found_error"
	TypeRequestTooLarge = "request_too_large"
	TypeRateLimit       = "rate_limit_error"
	TypeAPI             = "api_error"
	TypeTimeout         = "timeout_error"
	TypeOverloaded      = "overloaded_error"
)

// StatusOverloaded is the status Anthropic answers with when it is
// overloaded; clients and SDKs retry it.
const StatusOverloaded = 529

// ErrorType is the Anthropic error type for an HTTP status, as Anthropic
// documents them: a 4xx it does not list is an invalid_request_error; 503
// and 529 say the server is overloaded; 504 is the SDKs' timeout_error
// (GatewayTimeoutError); every other 5xx is an api_error.
func ErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return TypeInvalidRequest
	case http.StatusUnauthorized:
		return TypeAuthentication
	case http.StatusPaymentRequired:
		return TypeBilling
	case http.StatusForbidden:
		return TypePermission
	case http.StatusNotFound:
		return TypeNotFound
	case http.StatusRequestEntityTooLarge:
		return TypeRequestTooLarge
	case http.StatusTooManyRequests:
		return TypeRateLimit
	case http.StatusServiceUnavailable, StatusOverloaded:
		return TypeOverloaded
	case http.StatusGatewayTimeout:
		return TypeTimeout
	}
	if status >= 400 && status < 500 {
		return TypeInvalidRequest
	}
	return TypeAPI
}

// ErrorBody is an error in Anthropic's shape, the same before a stream
// (as the HTTP body) and inside one (as the data of an "error" event):
//
//	{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}
func ErrorBody(kind, message string) []byte {
	type inner struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	b, _ := marshal(struct {
		Type  string `json:"type"`
		Error inner  `json:"error"`
	}{"error", inner{kind, message}})
	return b
}
