package toolhost

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// The test vector of the Standard Webhooks reference library
// (libraries/go/webhook_test.go).
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignVector(t *testing.T) {
	key, err := signingKey(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := sign(key, vectorID, vectorTimestamp, []byte(vectorBody)); got != vectorSignature {
		t.Errorf("sign = %q, want %q", got, vectorSignature)
	}

	h := make(http.Header)
	setSignature(h, key, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	want := map[string]string{
		"webhook-id":        vectorID,
		"webhook-timestamp": "1614265330",
		"webhook-signature": vectorSignature,
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
}

func vectorHeader(sig string) http.Header {
	h := make(http.Header)
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", sig)
	return h
}

func TestVerifySignature(t *testing.T) {
	at := time.Unix(vectorTimestamp, 0)
	tests := []struct {
		name      string
		secret    string
		header    http.Header
		body      string
		now       time.Time
		tolerance time.Duration
		want      error
	}{
		{"vector", vectorSecret, vectorHeader(vectorSignature), vectorBody, at, 0, nil},
		{"rotation list", vectorSecret, vectorHeader("v1,Zm9v " + vectorSignature), vectorBody, at, 0, nil},
		{"within tolerance", vectorSecret, vectorHeader(vectorSignature), vectorBody, at.Add(4 * time.Minute), 0, nil},
		{"too old", vectorSecret, vectorHeader(vectorSignature), vectorBody, at.Add(6 * time.Minute), 0, ErrSignatureExpired},
		{"from the future", vectorSecret, vectorHeader(vectorSignature), vectorBody, at.Add(-6 * time.Minute), 0, ErrSignatureExpired},
		{"custom tolerance", vectorSecret, vectorHeader(vectorSignature), vectorBody, at.Add(6 * time.Minute), 10 * time.Minute, nil},
		{"body changed", vectorSecret, vectorHeader(vectorSignature), `{"test": 2432232315}`, at, 0, ErrSignatureMismatch},
		{"other secret", "whsec_" + "c2VjcmV0LXNlY3JldC1zZWNyZXQ=", vectorHeader(vectorSignature), vectorBody, at, 0, ErrSignatureMismatch},
		{"raw secret is not whsec", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", vectorHeader(vectorSignature), vectorBody, at, 0, ErrSignatureMismatch},
		{"no headers", vectorSecret, http.Header{}, vectorBody, at, 0, ErrSignatureMissing},
		{"bad timestamp", vectorSecret, func() http.Header {
			h := vectorHeader(vectorSignature)
			h.Set("webhook-timestamp", "yesterday")
			return h
		}(), vectorBody, at, 0, ErrSignatureExpired},
		{"bad secret", "whsec_!!!", vectorHeader(vectorSignature), vectorBody, at, 0, ErrSecretInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifySignature(tt.secret, tt.header, []byte(tt.body), tt.now, tt.tolerance)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("VerifySignature = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSigningKey(t *testing.T) {
	tests := []struct {
		secret  string
		want    string
		wantErr bool
	}{
		{secret: "plain-secret", want: "plain-secret"},
		{secret: "whsec_aGVsbG8=", want: "hello"},
		{secret: "whsec_aGVsbG8", want: "hello"}, // padding dropped
		{secret: "whsec_***", wantErr: true},
		{secret: "whsec_", wantErr: true},
		{secret: "", wantErr: true},
	}
	for _, tt := range tests {
		key, err := signingKey(tt.secret)
		if (err != nil) != tt.wantErr || string(key) != tt.want {
			t.Errorf("signingKey(%q) = %q, %v; want %q, error %v", tt.secret, key, err, tt.want, tt.wantErr)
		}
	}
}
