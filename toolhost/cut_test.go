package toolhost_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// TestCutCallRecord: a call whose client leaves mid-webhook is on record
// by whether the webhook got the request. Sent (the handler is running):
// outcome_unknown and executed — it may have acted; before, it was
// cancelled with executed true. Not sent (the TLS handshake never ended):
// cancelled, not executed. Either way the turn's Result is cancelled.
func TestCutCallRecord(t *testing.T) {
	for _, tc := range []struct {
		name         string
		url          func(t *testing.T, reached chan<- struct{}) string
		wantStatus   string
		wantCode     string
		wantExecuted bool
	}{
		{"after the webhook got it", func(t *testing.T, reached chan<- struct{}) string {
			return serve(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body) // so the server watches the connection
				reached <- struct{}{}
				<-r.Context().Done()
			}).URL
		}, store.StatusOutcomeUnknown, toolhost.CodeOutcomeUnknown, true},
		{"before the request was written", func(t *testing.T, reached chan<- struct{}) string {
			return "https://" + silentListener(t, reached)
		}, store.StatusCancelled, toolhost.CodeCancelled, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reached := make(chan struct{}, 1)
			dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			db := store.Checked(dbBackend)
			t.Cleanup(func() { db.Close() })
			h := newHost(t, []config.Tool{weatherTool(tc.url(t, reached))}, toolhost.Options{Records: db, Instance: "inst_now"})

			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan toolhost.Result, 1)
			go func() {
				res, err := h.Execute(ctx, weatherCall(`{"city":"Paris"}`))
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Execute error = %v, want context.Canceled", err)
				}
				done <- res
			}()
			<-reached
			cancel() // the client leaves
			if res := <-done; res.Status != toolhost.StatusCancelled {
				t.Errorf("result status = %s, want cancelled (the client left)", res.Status)
			}

			recs, _, err := db.Calls(t.Context(), store.CallQuery{})
			if err != nil || len(recs) != 1 {
				t.Fatalf("records = %+v, %v; want one", recs, err)
			}
			if r := recs[0]; r.Status != tc.wantStatus || r.ErrorCode != tc.wantCode || r.Executed != tc.wantExecuted {
				t.Errorf("record = status %s code %s executed %v, want %s %s %v",
					r.Status, r.ErrorCode, r.Executed, tc.wantStatus, tc.wantCode, tc.wantExecuted)
			}
		})
	}
}

// silentListener accepts connections and never says a word, so a TLS
// client waits in its handshake and writes no request. It signals reached
// on the first connection and returns its address.
func silentListener(t *testing.T, reached chan<- struct{}) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			reached <- struct{}{}
		}
	}()
	return ln.Addr().String()
}
