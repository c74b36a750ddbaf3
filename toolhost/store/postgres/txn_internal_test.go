package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolstream/toolstream/toolhost/store"
)

// TestUnavailableErrors: only errors of the connection are an outage; a
// failed statement, a bad record or the caller's own cancellation are not.
func TestUnavailableErrors(t *testing.T) {
	t.Parallel()
	var syntax *json.SyntaxError
	jsonErr := json.Unmarshal([]byte("{"), &struct{}{})
	if !errors.As(jsonErr, &syntax) {
		t.Fatalf("json error = %T", jsonErr)
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{context.DeadlineExceeded, true}, // the operation's own bound
		{pgconn.ErrConnClosed, true},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "22021"}, false},
		{jsonErr, false},
		{store.ErrNotFound, false},
	} {
		got := unavailable(context.Background(), tc.err)
		if errors.Is(got, store.ErrUnavailable) != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("unavailable(%v) = %v; want ErrUnavailable %v, wrapping the error", tc.err, got, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := unavailable(ctx, io.ErrUnexpectedEOF); !errors.Is(err, context.Canceled) || errors.Is(err, store.ErrUnavailable) {
		t.Errorf("unavailable with the caller gone = %v; want context.Canceled", err)
	}
}
