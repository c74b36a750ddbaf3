package toolhost_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// outage is a store whose writes of final call records fail while down,
// as they do with a database that went away after a call started.
type outage struct {
	store.Store
	down     atomic.Bool
	resolved chan int // what each ResolveStarted resolved
}

func (o *outage) fail(op string) error {
	if o.down.Load() {
		return fmt.Errorf("%s: %w: connection refused", op, store.ErrUnavailable)
	}
	return nil
}

func (o *outage) FinishCall(ctx context.Context, rec store.CallRecord, ref *store.AttemptRef) error {
	if err := o.fail("finishing call"); err != nil {
		return err
	}
	return o.Store.FinishCall(ctx, rec, ref)
}

func (o *outage) RecordCall(ctx context.Context, rec store.CallRecord) error {
	if err := o.fail("recording call"); err != nil {
		return err
	}
	return o.Store.RecordCall(ctx, rec)
}

func (o *outage) ResolveStarted(ctx context.Context, instance string, running func(string) bool) (int, error) {
	n, err := o.Store.ResolveStarted(ctx, instance, running)
	if err == nil {
		o.resolved <- n
	}
	return n, err
}

// syncBuffer is a log the host writes from its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// outageHost is a host over a webhook that answers at once, except for
// the city "Slow", which waits for release; its records go to an
// in-memory store behind an outage.
func outageHost(t *testing.T, release <-chan struct{}) (*toolhost.Host, *outage, *atomic.Int32, *syncBuffer) {
	t.Helper()
	var hits atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var body struct {
			Arguments struct{ City string } `json:"arguments"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		if body.Arguments.City == "Slow" {
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"temp":21}`))
	})
	dbBackend, err := badger.Open(config.Storage{InMemory: true}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := store.Checked(dbBackend)
	t.Cleanup(func() { db.Close() })
	o := &outage{Store: db, resolved: make(chan int, 16)}
	log := &syncBuffer{}
	h := newHost(t, []config.Tool{weatherTool(srv.URL)}, toolhost.Options{
		Records: o, Instance: "inst_now", Logger: slog.New(slog.NewTextHandler(log, nil))})
	return h, o, &hits, log
}

// within waits for cond: the retries run in the background, on their
// own schedule.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onlyRecord is the one audit record of the store.
func onlyRecord(t *testing.T, s store.Store) store.CallRecord {
	t.Helper()
	recs, _, err := s.Calls(context.Background(), store.CallQuery{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("records = %+v, %v; want one", recs, err)
	}
	return recs[0]
}

// TestFinalRecordOutlivesOutage: a call whose final record cannot be
// written (the database went away after the call started) still answers
// at once, and its record is written once storage is back; it never stays
// started. A call refused before running is kept the same way.
func TestFinalRecordOutlivesOutage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call       toolhost.Call
		wantStatus string
		wantHits   int32
	}{
		{"a call that ran", weatherCall(`{"city":"Paris"}`), store.StatusOK, 1},
		{"a call refused before running", toolhost.Call{ID: "call_x", Name: "no_such_tool", Arguments: json.RawMessage(`{}`)},
			store.StatusError, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, o, hits, _ := outageHost(t, nil)
			o.down.Store(true)
			res := execute(t, h, tc.call)
			if res.Status != tc.wantStatus {
				t.Fatalf("result status = %s, want %s", res.Status, tc.wantStatus)
			}
			o.down.Store(false)
			within(t, "final record written", func() bool {
				recs, _, err := o.Calls(context.Background(), store.CallQuery{})
				return err == nil && len(recs) == 1 && recs[0].Status == tc.wantStatus
			})
			if hits.Load() != tc.wantHits {
				t.Errorf("webhook hits = %d, want %d", hits.Load(), tc.wantHits)
			}
		})
	}
}

// TestOwnStartedCallsResolved: once storage is back after a final write
// failed, the process resolves its own started records whose call it no
// longer runs (outcome_unknown), and leaves those it runs alone.
func TestOwnStartedCallsResolved(t *testing.T) {
	release := make(chan struct{})
	h, o, _, _ := outageHost(t, release)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the webhook server closes: it waits for its handlers
	ctx := context.Background()
	orphan := store.CallRecord{ID: "tcr_orphan", Tool: "get_weather", Instance: "inst_now", StartedAt: time.Now()}
	if err := o.Store.StartCall(ctx, orphan, nil); err != nil {
		t.Fatal(err)
	}
	slow := make(chan toolhost.Result, 1)
	go func() {
		res, _ := h.Execute(ctx, weatherCall(`{"city":"Slow"}`))
		slow <- res
	}()
	within(t, "slow call started", func() bool {
		recs, _, _ := o.Calls(ctx, store.CallQuery{Status: store.StatusStarted})
		return len(recs) == 2
	})

	o.down.Store(true)
	execute(t, h, weatherCall(`{"city":"Paris"}`))
	o.down.Store(false)
	select {
	case n := <-o.resolved:
		if n != 1 {
			t.Errorf("resolved %d calls, want the orphan only", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no sweep within 20s of storage coming back")
	}
	byStatus := map[string][]string{}
	recs, _, err := o.Calls(ctx, store.CallQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		byStatus[r.Status] = append(byStatus[r.Status], r.ID)
	}
	if len(recs) != 3 || len(byStatus[store.StatusOK]) != 1 || len(byStatus[store.StatusStarted]) != 1 ||
		strings.Join(byStatus[store.StatusOutcomeUnknown], ",") != "tcr_orphan" {
		t.Errorf("records by status = %v; want the Paris call ok, the slow one started, the orphan outcome_unknown", byStatus)
	}
	free()
	if res := <-slow; res.Status != store.StatusOK {
		t.Errorf("slow call = %s, want ok", res.Status)
	}
}

// TestFinalRecordsAtShutdown: records still waiting for storage when the
// host closes are tried once more, and each one lost is logged; no retry
// goroutine outlives Close (TestMain checks).
func TestFinalRecordsAtShutdown(t *testing.T) {
	h, o, _, log := outageHost(t, nil)
	o.down.Store(true)
	execute(t, h, weatherCall(`{"city":"Paris"}`))
	h.Close()
	if r := onlyRecord(t, o); r.Status != store.StatusStarted {
		t.Errorf("record = %s, want still started (nothing could write it)", r.Status)
	}
	if !strings.Contains(log.String(), "audit log write given up") || !strings.Contains(log.String(), "audit_id="+onlyRecord(t, o).ID) {
		t.Errorf("log does not name the lost record:\n%s", log)
	}
}
