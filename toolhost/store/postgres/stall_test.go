package postgres

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// stallProxy forwards TCP connections to a PostgreSQL server's socket
// and can stop forwarding without closing anything, as a database that
// hangs (a frozen VM, a saturated disk, a partition) does.
type stallProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	stalled bool
	resume  chan struct{}
	conns   []net.Conn
	wg      sync.WaitGroup
}

// newStallProxy forwards to the server dsn names and returns the DSN to
// use instead; it stops when t ends.
func newStallProxy(t *testing.T, dsn string) (*stallProxy, string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, target: filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port)), resume: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	addr := ln.Addr().(*net.TCPAddr)
	return p, fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable", addr.Port, cfg.User, cfg.Database)
}

func (p *stallProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("unix", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(s, c) })
		p.wg.Go(func() { p.pipe(c, s) })
	}
}

// pipe copies from src to dst, holding each read while stalled.
func (p *stallProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			stalled, resume := p.stalled, p.resume
			p.mu.Unlock()
			if stalled {
				<-resume
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stall stops forwarding; unstall forwards again what was held.
func (p *stallProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = true
}

func (p *stallProxy) unstall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		p.stalled = false
		close(p.resume)
		p.resume = make(chan struct{})
	}
}

func (p *stallProxy) close() {
	p.ln.Close()
	p.unstall()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestStalledDatabaseFailsFast: with a database that stops answering
// without closing anything, an operation fails as soon as the pings find
// it silent (a ping interval and a ping's 2 s), not after its own bound:
// a turn that needs several operations would otherwise wait for each in
// turn. Writes and reads alike, one already waiting and one started
// after; and the store serves again once the database answers.
func TestStalledDatabaseFailsFast(t *testing.T) {
	t.Parallel()
	p, dsn := newStallProxy(t, pgtest.Start(t))
	const opBound = 30 * time.Second // the bound these must not wait out
	db := openDB(t, dsn, Options{OpTimeout: opBound, PingInterval: 100 * time.Millisecond})
	s := store.Checked(db)
	ctx := t.Context()
	rec := store.CallRecord{ID: "tcr_1", Tool: "t", Instance: "inst_a", Status: store.StatusStarted}
	if err := s.StartCall(ctx, rec, nil); err != nil {
		t.Fatal(err)
	}

	p.stall()
	start := time.Now()
	errs := map[string]error{}
	rec.Status = store.StatusOK
	errs["FinishCall"] = s.FinishCall(ctx, rec, nil) // waits on the stalled server
	_, _, errs["Call"] = s.Call(ctx, "tcr_1")        // after the pings noticed
	errs["RecordCall"] = s.RecordCall(ctx, store.CallRecord{ID: "tcr_2", Tool: "t", Status: store.StatusOK})
	took := time.Since(start)
	for op, err := range errs {
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s = %v; want ErrUnavailable", op, err)
		}
	}
	if took >= opBound/2 {
		t.Errorf("three operations took %s on a stalled database; want them failed once the pings noticed, far within the %s operation bound", took, opBound)
	}
	t.Logf("three operations failed in %s on a stalled database", took.Round(time.Millisecond))

	p.unstall()
	deadline := time.Now().Add(opBound)
	for db.Reachable() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("still unreachable %s after the database answers again", opBound)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.FinishCall(ctx, rec, nil); err != nil {
		t.Errorf("FinishCall once the database answers = %v", err)
	}
}
