package proxy_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/backend"
	"github.com/toolstream/toolstream/toolhost/store/badger"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// redactingTurns runs a chat turn and a stored Responses turn, each
// calling lookup (whose result holds policyEmail) through a proxy whose
// records go to st, and checks the client never saw the email.
func redactingTurns(t *testing.T, st store.Store) {
	t.Helper()
	lookupRound := func(id string) upstreamtest.Round { return textRound(id, "Looking. ", call("lookup", `{"who":"ann"}`)) }
	p := newParts(t, policyConfig, []upstreamtest.Round{lookupRound("s1"), textRound("s2", "Found."), lookupRound("s3"), textRound("s4", "Found.")})
	p.hooks.answer("lookup", hookAnswer{body: `{"email":"` + policyEmail + `"}`})
	p.hooks.answer("lookup", hookAnswer{body: `{"email":"` + policyEmail + `"}`})
	w := wired(t, st)
	host := p.host(t, w.Host(toolhost.Options{}))
	e := p.serve(t, w.Proxy(proxy.Options{}, host, nil))
	var seen strings.Builder
	for _, req := range []struct{ path, body string }{
		{"/v1/chat/completions", toolRequest},
		{"/v1/responses", `{"model":"m","stream":true,"store":true,"input":"who is ann"}`},
	} {
		resp := e.do(t, http.MethodPost, req.path, req.body, "Authorization: Bearer "+appKey)
		body := readAll(t, resp)
		if resp.StatusCode != 200 || !strings.Contains(body, "Found.") {
			t.Fatalf("%s: %d %s", req.path, resp.StatusCode, body)
		}
		seen.WriteString(body)
	}
	if n := len(p.hooks.received()); n != 2 {
		t.Fatalf("lookup ran %d times, want 2", n)
	}
	if strings.Contains(seen.String(), policyEmail) || !strings.Contains(seen.String(), "[redacted]") {
		t.Errorf("the client saw the email, or no redaction: %s", seen.String())
	}
	e.srv.Close() // every handler has returned and written its records
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkStoreClean looks for the email in every stored key and value, and
// makes sure the grep had something to read.
func checkStoreClean(t *testing.T, stored string) {
	t.Helper()
	if !strings.Contains(stored, "lookup") || !strings.Contains(stored, "[redacted]") {
		t.Fatalf("the store holds no redacted lookup call: the grep proves nothing\n%s", stored)
	}
	if i := strings.Index(stored, policyEmail); i >= 0 {
		t.Errorf("the store holds the redacted email:\n…%s…", stored[max(0, i-200):min(len(stored), i+100)])
	}
	// The local part alone, as a partial leak would show it.
	if strings.Contains(stored, "ann.lee@") {
		t.Error("the store holds the email's local part")
	}
}

// TestRedactionNeverStoredBadger greps every badger key and value after
// redacting turns: the audit log, turn records and stored responses hold
// [redacted], never the address.
func TestRedactionNeverStoredBadger(t *testing.T) {
	dir := t.TempDir()
	db, err := badger.Open(config.Storage{Path: dir}, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	redactingTurns(t, store.Checked(db))
	checkStoreClean(t, dumpStore(t, dir))
}

// TestRedactionNeverStoredPostgres is the same grep over every row of
// every table of a PostgreSQL store.
func TestRedactionNeverStoredPostgres(t *testing.T) {
	cfg := config.Storage{Backend: config.BackendPostgres}
	dsn := pgtest.Start(t)
	cfg.Postgres.DSN, cfg.Postgres.MaxConns = config.Secret(dsn), 4
	st, _, err := backend.Open(t.Context(), cfg, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	redactingTurns(t, st)
	checkStoreClean(t, dumpPostgres(t, dsn))
}

// dumpPostgres reads every row of every table of the database, as text.
func dumpPostgres(t *testing.T, dsn string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tbl := range tables {
		rows, err := conn.Query(t.Context(), fmt.Sprintf(`SELECT t::text FROM %s t`, pgx.Identifier{tbl}.Sanitize()))
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %s\n", tbl, strings.Join(vals, "\n"))
	}
	return b.String()
}
