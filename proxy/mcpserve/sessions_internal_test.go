package mcpserve

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// headerOrder records whether the session was registered when the
// initialize answer's header went out.
type headerOrder struct {
	*httptest.ResponseRecorder
	registered *bool
	sawIt      bool
}

func (w *headerOrder) WriteHeader(code int) {
	w.sawIt = *w.registered
	w.ResponseRecorder.WriteHeader(code)
}

// TestSessionRegisteredBeforeAnswer: a new session is in the table before
// a byte of the initialize answer reaches the client, which may use the
// session the moment it reads the id. Registered after, a tools/call that
// came quickly was not counted busy, and a cap evicted the session under
// it (seen as a flaky TestProbeMCPSessionCap on a loaded machine).
func TestSessionRegisteredBeforeAnswer(t *testing.T) {
	ss := newSessions(10, 10)
	sc := &scope{name: "k"}
	done, err := ss.reserve(sc)
	if err != nil {
		t.Fatal(err)
	}
	registered := false
	rec := &headerOrder{ResponseRecorder: httptest.NewRecorder(), registered: &registered}
	rw := &registering{ResponseWriter: rec, done: func(id string) {
		done(id)
		registered = ss.byID[id] != nil
	}}
	// What the SDK does: set the id, then answer.
	rw.Header().Set("Mcp-Session-Id", "s1")
	rw.WriteHeader(http.StatusOK)
	rw.Write([]byte("event: message\n"))
	rw.register()
	if !rec.sawIt {
		t.Fatal("the session was registered after its answer's header went out")
	}
	end := ss.use("s1")
	if ss.idlest(sc) != nil {
		t.Error("a session in use right after its initialize counts as idle")
	}
	end()
	if ss.pending["k"] != 0 || ss.pendingAll != 0 {
		t.Errorf("pending = %d/%d after the answer; want 0", ss.pending["k"], ss.pendingAll)
	}
}
