// Package webhook is what a toolstream webhook tool server needs, in the
// standard library only: verifying the Standard Webhooks signature
// toolstream puts on every call, reading the call, and answering with the
// result the model reads. Copy it into your own server as it is.
package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a call's timestamp may be from the receiver's
// clock: older calls are replays, newer ones a clock gone wrong.
const Tolerance = 5 * time.Minute

// Verify checks that a call was signed with secret (the tool's
// webhook.secret in toolstream's config): header is the request's header,
// body its exact bytes, now the receiver's clock. A secret written
// "whsec_<base64>" is the base64-decoded key, any other is used as its
// bytes. webhook-signature may list several signatures (a key being
// rotated); one match is enough.
func Verify(secret string, header http.Header, body []byte, now time.Time) error {
	key := []byte(secret)
	if b64, ok := strings.CutPrefix(secret, "whsec_"); ok {
		var err error
		if key, err = base64.StdEncoding.DecodeString(b64); err != nil {
			// Some generators drop the padding.
			if key, err = base64.RawStdEncoding.DecodeString(b64); err != nil {
				return errors.New("the secret's part after whsec_ is not base64")
			}
		}
	}
	id := header.Get("webhook-id")
	timestamp := header.Get("webhook-timestamp")
	signatures := header.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return errors.New("webhook signature headers missing")
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not unix seconds")
	}
	if d := now.Sub(time.Unix(seconds, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("webhook-timestamp is %s from now", d.Round(time.Second))
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, timestamp)
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(signatures) {
		version, value, _ := strings.Cut(sig, ",")
		got, err := base64.StdEncoding.DecodeString(value)
		if version == "v1" && err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no webhook signature matches")
}

// Call is the body toolstream POSTs for one tool call.
type Call struct {
	// ID is the call's id, stable across retries: deduplicate with it.
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	TurnID    string          `json:"turn_id"`
	Round     int             `json:"round"`
	Model     string          `json:"model"`
}

// Func runs one tool: its result is answered as JSON; an error is
// answered 422 with its message, or with an *Error's own status.
type Func func(ctx context.Context, c Call) (any, error)

// Error is a failure the model should read and act on.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with status 422 (the arguments cannot be
// acted on).
func Errorf(format string, args ...any) error {
	return &Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf(format, args...)}
}

// maxBody bounds a call's body.
const maxBody = 1 << 20

// Serve answers POST /<tool> for each tool, calls signed with secret only.
// log, when not nil, is told of every call.
func Serve(secret string, tools map[string]Func, log func(c Call, err error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, map[string]string{"error": "toolstream calls tools with POST"})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		if err != nil {
			reply(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body over 1 MiB"})
			return
		}
		if err := Verify(secret, r.Header, body, time.Now()); err != nil {
			reply(w, http.StatusUnauthorized, map[string]string{"error": "bad signature: " + err.Error()})
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		run, ok := tools[name]
		if !ok {
			reply(w, http.StatusNotFound, map[string]string{"error": "no such tool: " + name})
			return
		}
		var c Call
		if err := json.Unmarshal(body, &c); err != nil {
			reply(w, http.StatusBadRequest, map[string]string{"error": "the body is not a toolstream call"})
			return
		}
		result, err := run(r.Context(), c)
		if log != nil {
			log(c, err)
		}
		if err != nil {
			status := http.StatusUnprocessableEntity
			var e *Error
			if errors.As(err, &e) {
				status = e.Status
			}
			reply(w, status, map[string]string{"error": err.Error()})
			return
		}
		reply(w, http.StatusOK, result)
	})
}

// Args decodes a call's arguments into v, as an error the model can act
// on when they do not fit.
func Args(c Call, v any) error {
	if err := json.Unmarshal(c.Arguments, v); err != nil {
		return Errorf("arguments do not fit %s: %v", c.Tool, err)
	}
	return nil
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
