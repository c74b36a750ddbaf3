package proxy

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/toolstream/toolstream/proxy/keys"
)

// Errors of client keys: their scopes, limits and the admin routes that
// manage them.
var (
	// errKeyRevoked ends a turn whose key was revoked (or expired) while
	// it ran, before its next round.
	errKeyRevoked  = errors.New("proxy: the API key was revoked while the turn ran")
	errKeyNotFound = errors.New("proxy: no such key")
	errKeyExists   = errors.New("proxy: a key of that name exists")
)

// modelNotAllowed is a request for a model outside its key's scope.
type modelNotAllowed struct{ key, model string }

func (e *modelNotAllowed) Error() string {
	if e.model == "" {
		return fmt.Sprintf("the API key %s may use only some models, and this request names none (a JSON body with \"model\")", e.key)
	}
	return fmt.Sprintf("the API key %s may not use the model `%s`", e.key, e.model)
}

// rateLimited is a request over one of its key's limits.
type rateLimited struct {
	key string
	v   keys.Verdict
}

func (e *rateLimited) Error() string { return e.v.Refusal(e.key) }

// configKeyError is an admin change of a key defined in auth.keys.
type configKeyError struct{ name string }

func (e *configKeyError) Error() string {
	return fmt.Sprintf("key %q comes from auth.keys in the config file; edit the file and reload to change it", e.name)
}

// keySpecError is a malformed /admin/keys body.
type keySpecError struct{ param, msg string }

func (e *keySpecError) Error() string { return e.msg }

// keyError maps the errors of client keys; ok is false for any other.
func keyError(err error) (apiError, bool) {
	var (
		mna *modelNotAllowed
		rl  *rateLimited
		cke *configKeyError
		kse *keySpecError
	)
	switch {
	case errors.Is(err, errKeyRevoked):
		return apiError{Status: http.StatusUnauthorized, Type: "authentication_error", Code: "invalid_api_key",
			Message: "the API key was revoked or expired while the turn ran; the turn stopped before its next round"}, true
	case errors.As(err, &mna):
		return apiError{Status: http.StatusForbidden, Type: "permission_error", Code: "model_not_allowed", Param: "model", Message: mna.Error()}, true
	case errors.As(err, &rl):
		h := http.Header{}
		rl.v.SetHeaders(h)
		// OpenAI's type names the exhausted limit: "requests" or "tokens".
		return apiError{Status: http.StatusTooManyRequests, Type: rl.v.Kind, Code: "rate_limit_exceeded", Message: rl.Error(), Header: h}, true
	case errors.Is(err, errKeyNotFound):
		return apiError{Status: http.StatusNotFound, Type: "not_found_error", Code: "key_not_found", Message: "no client key of that name"}, true
	case errors.Is(err, errKeyExists):
		return apiError{Status: http.StatusConflict, Type: "invalid_request_error", Code: "key_exists", Param: "name",
			Message: "a client key of that name exists; PATCH /admin/keys/{name} changes it"}, true
	case errors.As(err, &cke):
		return apiError{Status: http.StatusConflict, Type: "invalid_request_error", Code: "key_read_only", Param: "name", Message: cke.Error()}, true
	case errors.As(err, &kse):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "invalid_key", Param: kse.param, Message: kse.msg}, true
	}
	return apiError{}, false
}
