package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// heard subscribes to s and returns its changes, resyncs included.
func heard(t *testing.T, s *DB) <-chan store.Change {
	ch := make(chan store.Change, 256)
	t.Cleanup(s.Subscribe(func(c store.Change) { ch <- c }))
	return ch
}

// waitFor waits for a change like want, dropping others.
func waitFor(t *testing.T, ch <-chan store.Change, want store.Change, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case c := <-ch:
			if c == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %v %q within %s", want.Kind, want.ID, within)
		}
	}
}

// TestFeedAcrossReplicas: a change one store commits reaches the
// subscribers of another store on the same database promptly.
func TestFeedAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	a, b := openDB(t, dsn, Options{}), openDB(t, dsn, Options{})
	got := make(chan time.Time, 1)
	t.Cleanup(b.Subscribe(func(c store.Change) {
		if c.Kind == store.ChangeTools {
			got <- time.Now()
		}
	}))
	var lat []time.Duration
	for i := range 20 {
		start := time.Now()
		if err := a.PutTool(t.Context(), store.RuntimeTool{Name: fmt.Sprintf("t%d", i), Spec: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
		select {
		case at := <-got:
			lat = append(lat, at.Sub(start))
		case <-time.After(2 * time.Second):
			t.Fatalf("change %d not heard by the other store within 2s", i)
		}
	}
	slices.Sort(lat)
	t.Logf("write+notify latency over %d changes: median %s, max %s", len(lat), lat[len(lat)/2], lat[len(lat)-1])
}

// TestListenerReconnects: a store whose listening connection is killed
// tells its subscribers to resync once it listens again, and later
// changes arrive as before.
func TestListenerReconnects(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	s := openDB(t, dsn, Options{})
	ch := heard(t, s)
	pid := s.listenerPID.Load()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var ok bool
	if err := conn.QueryRow(t.Context(), `SELECT pg_terminate_backend($1)`, int32(pid)).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminating the listener (pid %d) = %v, %v", pid, ok, err)
	}
	waitFor(t, ch, store.Change{Kind: store.ChangeResync}, 10*time.Second)
	if s.listenerPID.Load() == pid {
		t.Errorf("listener pid still %d after reconnecting", pid)
	}
	if err := s.PutTool(t.Context(), store.RuntimeTool{Name: "after", Spec: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, store.Change{Kind: store.ChangeTools, ID: "after"}, 5*time.Second)
}

// TestListenerSilent: a listening connection that stops answering
// without closing (its server process frozen) is noticed by the
// listener's ping, replaced, and followed by a resync.
func TestListenerSilent(t *testing.T) {
	t.Parallel()
	s := openDB(t, pgtest.Start(t), Options{ResyncInterval: 200 * time.Millisecond})
	ch := heard(t, s)
	pid := int(s.listenerPID.Load())
	backend, err := os.FindProcess(pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Signal(syscall.SIGSTOP); err != nil {
		t.Skipf("cannot freeze the listener's server process %d: %v", pid, err)
	}
	t.Cleanup(func() { backend.Signal(syscall.SIGCONT) })
	deadline := time.Now().Add(10 * time.Second)
	for int(s.listenerPID.Load()) == pid {
		if time.Now().After(deadline) {
			t.Fatal("the listener still uses its frozen connection after 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	waitFor(t, ch, store.Change{Kind: store.ChangeResync}, 5*time.Second)
	if err := s.PutTool(t.Context(), store.RuntimeTool{Name: "after", Spec: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, store.Change{Kind: store.ChangeTools, ID: "after"}, 5*time.Second)
}

// TestRecoverSparesLiveReplicas: a replica's Recover leaves another live
// replica's started call alone; once that replica stops heartbeating,
// the survivor's sweep marks the call outcome_unknown and tells its
// subscribers.
func TestRecoverSparesLiveReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	opts := Options{HeartbeatInterval: 100 * time.Millisecond}
	a, b := openDB(t, dsn, opts), openDB(t, dsn, opts)
	ctx := t.Context()
	if _, err := a.Recover(ctx, "inst_a"); err != nil {
		t.Fatal(err)
	}
	if err := store.Checked(a).StartCall(ctx, store.CallRecord{ID: "tcr_a", Tool: "t", Instance: "inst_a"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := store.Checked(a).CreateAction(ctx, store.Action{ID: "act_a", Tool: "t", Instance: "inst_a", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ch := heard(t, b)
	if r, err := b.Recover(ctx, "inst_b"); err != nil || r != (store.Recovered{}) {
		t.Fatalf("Recover of B = %+v, %v; want nothing resolved while A lives", r, err)
	}
	time.Sleep(5 * opts.HeartbeatInterval) // several sweeps of B
	if rec, _, err := b.Call(ctx, "tcr_a"); err != nil || rec.Status != store.StatusStarted {
		t.Fatalf("A's call while A lives = %+v, %v; want started", rec, err)
	}

	a.inst.paused.Store(true) // A freezes: no heartbeat, its row stays
	waitFor(t, ch, store.Change{Kind: store.ChangeCall, ID: "tcr_a"}, 5*time.Second)
	if rec, _, err := b.Call(ctx, "tcr_a"); err != nil || rec.Status != store.StatusOutcomeUnknown {
		t.Errorf("A's call after A stopped = %+v, %v; want outcome_unknown", rec, err)
	}
	waitFor(t, ch, store.Change{Kind: store.ChangeAction, ID: "act_a"}, 5*time.Second)
	if act, _, err := b.Action(ctx, "act_a"); err != nil || act.Status != store.ActionExpired || act.DecidedBy != store.DecidedByCrash {
		t.Errorf("A's action after A stopped = %+v, %v; want expired by %s", act, err, store.DecidedByCrash)
	}
	// The dead instance's row goes too.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var n int
		if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM instances WHERE id = 'inst_a'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the dead instance's heartbeat row was never deleted")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDecideAcrossReplicas: of deciders on several replicas at once, one
// wins; the others get ErrDecided with the winner's decision.
func TestDecideAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	stores := []store.Store{
		store.Checked(openDB(t, dsn, Options{})), store.Checked(openDB(t, dsn, Options{})), store.Checked(openDB(t, dsn, Options{})),
	}
	ctx := t.Context()
	if err := stores[0].CreateAction(ctx, store.Action{ID: "act_1", Tool: "t", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	const n = 12
	var (
		wg   sync.WaitGroup
		errs = make([]error, n)
		got  = make([]store.Action, n)
	)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			got[i], errs[i] = stores[i%len(stores)].DecideAction(ctx, "act_1", store.ActionApproved, fmt.Sprintf("key_%02d", i), "")
		})
	}
	close(start)
	wg.Wait()
	winner := ""
	for i, err := range errs {
		switch {
		case err == nil && winner == "":
			winner = got[i].DecidedBy
		case err == nil:
			t.Fatalf("two deciders won: %s and %s", winner, got[i].DecidedBy)
		case !errors.Is(err, store.ErrDecided):
			t.Errorf("decider %d: %v", i, err)
		}
	}
	if winner == "" {
		t.Fatal("no decider won")
	}
	for i, err := range errs {
		if err != nil && got[i].DecidedBy != winner {
			t.Errorf("decider %d was told %q decided, want %q", i, got[i].DecidedBy, winner)
		}
	}
}

// TestConcurrentOpen: replicas starting at once on a new database apply
// the schema once, without error.
func TestConcurrentOpen(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Start(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := Open(t.Context(), storage(dsn), Options{})
			if err == nil {
				err = db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	steps, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	s := openDB(t, dsn, Options{})
	var n int
	if err := s.pool.QueryRow(t.Context(), `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(steps) {
		t.Errorf("schema_migrations holds %d rows, %v; want %d", n, err, len(steps))
	}
}

// TestExpirySweep: the sweep deletes expired rows, and leaves live ones.
func TestExpirySweep(t *testing.T) {
	t.Parallel()
	s := openDB(t, pgtest.Start(t), Options{})
	ctx := t.Context()
	if err := store.Checked(s).RecordCall(ctx, store.CallRecord{ID: "tcr_old", Tool: "t", StartedAt: time.Now().Add(-2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := store.Checked(s).RecordCall(ctx, store.CallRecord{ID: "tcr_new", Tool: "t"}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.expire(ctx); err != nil || n != 1 {
		t.Errorf("expire = %d, %v; want 1 row", n, err)
	}
	var ids []string
	rows, err := s.pool.Query(ctx, `SELECT id FROM calls`)
	if err == nil {
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || !slices.Equal(ids, []string{"tcr_new"}) {
		t.Errorf("calls left = %v, %v; want tcr_new", ids, err)
	}
}

// TestUnavailable: when the server stops, Ready says so within a few
// pings and calls fail quickly with ErrUnavailable, counted as write
// failures.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	c := pgtest.NewTestCluster(t)
	s := openDB(t, c.NewDB(t), Options{PingInterval: 100 * time.Millisecond})
	if err := s.Ready(); err != nil || s.Reachable() != nil {
		t.Fatalf("Ready = %v, Reachable = %v", err, s.Reachable())
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Ready() == nil {
		if time.Now().After(deadline) {
			t.Fatal("Ready still nil 5s after the server stopped")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Ready(); !errors.Is(err, store.ErrUnavailable) || !errors.Is(s.Reachable(), store.ErrUnavailable) {
		t.Errorf("Ready = %v, Reachable = %v; want ErrUnavailable (turns are refused on Reachable)", err, s.Reachable())
	}
	start := time.Now()
	err := s.PutTool(t.Context(), store.RuntimeTool{Name: "t", Spec: json.RawMessage(`{}`)})
	_, _, rerr := s.Call(t.Context(), "tcr_1")
	took := time.Since(start)
	if !errors.Is(err, store.ErrUnavailable) || !errors.Is(rerr, store.ErrUnavailable) {
		t.Errorf("PutTool = %v, Call = %v; want ErrUnavailable", err, rerr)
	}
	if took > 4*time.Second {
		t.Errorf("two calls took %s with the server down; want them to fail fast", took)
	}
	t.Logf("two calls failed in %s with the server down", took)
	if n := s.WriteFailures(); n != 1 {
		t.Errorf("WriteFailures = %d, want 1", n)
	}
}
