package postgres

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// roundTrips counts what a connection sends the server and waits for: a
// statement, or a batch of them.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// runTurn is what one turn with one server call asks of the store, as
// the tool host and the loop ask it.
func runTurn(ctx context.Context, db store.Store) error {
	start := time.Now().UTC()
	rec := store.CallRecord{
		ID: store.NewID("tcr_"), TurnID: "chatcmpl-bench", CallID: "call_1", Tool: "lookup",
		Arguments: json.RawMessage(`{"q":"weather in Paris"}`), StartedAt: start, Instance: "inst_bench",
		Executed: true, Attempt: "att_bench",
	}
	ref := &store.AttemptRef{Attempt: "att_bench", TTL: time.Hour, Replay: store.Replay{
		AuditID: rec.ID, TurnID: rec.TurnID, Tool: rec.Tool, ArgsHash: "h", Status: store.StatusStarted, StartedAt: start,
	}}
	if err := db.StartCall(ctx, rec, ref); err != nil {
		return err
	}
	done := time.Now().UTC()
	rec.Status, rec.FinishedAt, rec.ResultExcerpt = store.StatusOK, &done, "sunny"
	ref.Replay.Status, ref.Replay.Content = store.StatusOK, "sunny"
	if err := db.FinishCall(ctx, rec, ref); err != nil {
		return err
	}
	id := store.NewID("chatcmpl-")
	return db.SaveTurn(ctx, store.TurnRecord{
		ID: id, Keys: []string{"fp:" + id, "call:call_" + id},
		Messages: []json.RawMessage{json.RawMessage(`{"role":"assistant","content":"It is sunny."}`)},
	})
}

// BenchmarkTurn is the storage work of a turn that runs one server call:
// StartCall, FinishCall and SaveTurn. rt/op is the round trips it costs.
func BenchmarkTurn(b *testing.B) {
	rt := &roundTrips{}
	db := store.Checked(openDB(b, pgtest.Start(b), Options{tracer: rt, ExpiryInterval: time.Hour})) // no sweep among the counted
	ctx := context.Background()
	if err := runTurn(ctx, db); err != nil { // statements prepared
		b.Fatal(err)
	}
	rt.n.Store(0)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if err := runTurn(ctx, db); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(rt.n.Load())/float64(i), "rt/op")
}

// TestTurnRoundTrips: each write of a turn with one server call is one
// statement, sent in one round trip; a BEGIN and COMMIT around it would
// double or triple the database's work per call.
func TestTurnRoundTrips(t *testing.T) {
	t.Parallel()
	rt := &roundTrips{}
	db := openDB(t, pgtest.Start(t), Options{tracer: rt, ExpiryInterval: time.Hour}) // no sweep among the counted
	rt.n.Store(0)
	if err := runTurn(t.Context(), store.Checked(db)); err != nil {
		t.Fatal(err)
	}
	if n := rt.n.Load(); n != 3 {
		t.Errorf("a turn's StartCall, FinishCall and SaveTurn took %d round trips, want 3", n)
	}
}
