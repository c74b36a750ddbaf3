package toolhost

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks v1 (standardwebhooks.com) headers, as docs/webhooks.md
// names them.
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// secretPrefix marks a secret in the Standard Webhooks form: "whsec_"
// followed by the base64 of the key bytes.
const secretPrefix = "whsec_"

// DefaultSignatureTolerance is how far a webhook-timestamp may be from the
// receiver's clock, the Standard Webhooks recommendation.
const DefaultSignatureTolerance = 5 * time.Minute

// Errors of [VerifySignature]; match them with errors.Is.
var (
	ErrSignatureMissing  = errors.New("toolhost: webhook signature headers missing")
	ErrSignatureExpired  = errors.New("toolhost: webhook timestamp outside tolerance")
	ErrSignatureMismatch = errors.New("toolhost: no webhook signature matches")
	ErrSecretInvalid     = errors.New("toolhost: webhook secret invalid")
)

// signingKey returns the HMAC key of a configured secret. A secret of the
// form "whsec_<base64>" is base64-decoded after the prefix, as Standard
// Webhooks libraries do, so secrets generated for them work unchanged; any
// other secret is used as its raw bytes. The error never contains the
// secret.
func signingKey(secret string) ([]byte, error) {
	if secret == "" {
		return nil, fmt.Errorf("%w: empty", ErrSecretInvalid)
	}
	b64, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return []byte(secret), nil
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		// Some generators drop the padding; accept that too.
		key, err = base64.RawStdEncoding.DecodeString(b64)
	}
	if err != nil || len(key) == 0 {
		return nil, fmt.Errorf("%w: the part after %q is not base64", ErrSecretInvalid, secretPrefix)
	}
	return key, nil
}

// sign returns the webhook-signature value for one request:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)).
// body must be the exact bytes sent.
func sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// setSignature adds the three Standard Webhooks headers to h.
func setSignature(h http.Header, key []byte, id string, now time.Time, body []byte) {
	ts := now.Unix()
	h.Set(HeaderWebhookID, id)
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderWebhookSignature, sign(key, id, ts, body))
}

// VerifySignature checks a request signed the Standard Webhooks way, as a
// webhook tool receiving toolstream's calls should: secret is the tool's
// configured secret (same "whsec_" rule as the sender), header the
// request's headers, body its exact bytes, now the receiver's clock, and
// tolerance how far the timestamp may be from now (zero or less means
// [DefaultSignatureTolerance]). webhook-signature may hold several
// space-separated signatures (key rotation); one match is enough. The
// comparison is constant-time.
//
// It returns nil, or an error matching [ErrSignatureMissing],
// [ErrSignatureExpired], [ErrSignatureMismatch] or [ErrSecretInvalid].
func VerifySignature(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := signingKey(secret)
	if err != nil {
		return err
	}
	id := header.Get(HeaderWebhookID)
	tsText := header.Get(HeaderWebhookTimestamp)
	sigs := header.Get(HeaderWebhookSignature)
	if id == "" || tsText == "" || sigs == "" {
		return ErrSignatureMissing
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q is not unix seconds", ErrSignatureExpired, tsText)
	}
	if tolerance <= 0 {
		tolerance = DefaultSignatureTolerance
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: timestamp is %s from now", ErrSignatureExpired, d.Round(time.Second))
	}
	want := []byte(sign(key, id, ts, body))
	for sig := range strings.FieldsSeq(sigs) {
		if hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}
