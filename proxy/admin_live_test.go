package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// liveMsg is one message of GET /admin/live.
type liveMsg struct {
	Type   string     `json:"type"`
	Turns  []liveTurn `json:"turns"`
	Turn   *liveTurn  `json:"turn"`
	CallID string     `json:"call_id"`
}

type liveTurn struct {
	ID, TurnID, Key, Model, Route string
	Round                         int
	Calls                         []struct {
		CallID, Tool, Status, ActionID string
	}
}

func (t *liveTurn) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID     string `json:"id"`
		TurnID string `json:"turn_id"`
		Key    string `json:"key"`
		Model  string `json:"model"`
		Route  string `json:"route"`
		Round  int    `json:"round"`
		Calls  []struct {
			CallID   string `json:"call_id"`
			Tool     string `json:"tool"`
			Status   string `json:"status"`
			ActionID string `json:"action_id"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*t = liveTurn{ID: raw.ID, TurnID: raw.TurnID, Key: raw.Key, Model: raw.Model, Route: raw.Route, Round: raw.Round}
	for _, c := range raw.Calls {
		t.Calls = append(t.Calls, struct{ CallID, Tool, Status, ActionID string }(c))
	}
	return nil
}

// next reads the live stream's next message.
func (r *streamReader) next(t *testing.T) liveMsg {
	t.Helper()
	var m liveMsg
	if err := json.Unmarshal([]byte(r.until(t, `"type"`)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAdminLive: an admin's live stream starts with a snapshot, then
// follows a turn of another key through its changes — started, the call
// running, its approval waiting (decided from the action id it shows),
// the call finished, the next round, the turn ended — whatever the
// turn's display; a second reader's snapshot shows the turn as it stands;
// a client key may not read it.
func TestAdminLive(t *testing.T) {
	e, _ := newKeysEnv(t, mcpConfig(), nil, []upstreamtest.Round{
		textRound("c1", "Checking. ", call("approve_task", `{"id":"7"}`)), textRound("c2", "Approved."),
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	liveResp := e.doCtx(t, ctx, http.MethodGet, "/admin/live", "", "Authorization: Bearer "+keysAdmin)
	if liveResp.StatusCode != 200 || liveResp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /admin/live: %d %v", liveResp.StatusCode, liveResp.Header)
	}
	lv := newStreamReader(t, liveResp)
	if m := lv.next(t); m.Type != "snapshot" || m.Turns == nil || len(m.Turns) != 0 {
		t.Fatalf("first message %+v, want an empty snapshot", m)
	}

	turn := openStream(t, e, ctx, toolRequest, "Authorization: Bearer "+appKey, "X-Toolstream-Display: none")
	var action string
	for _, want := range []string{"turn.started", "call.running", "approval.waiting"} {
		m := lv.next(t)
		if m.Type != want || m.Turn == nil || m.Turn.Key != "app" || m.Turn.Model != "m" || m.Turn.Route != "chat" {
			t.Fatalf("got %+v, want %s of app's chat turn", m, want)
		}
		if want == "approval.waiting" {
			c := m.Turn.Calls
			if len(c) != 1 || c[0].Tool != "approve_task" || c[0].Status != "waiting_approval" || c[0].ActionID == "" || m.Turn.TurnID == "" {
				t.Fatalf("waiting turn %+v", m.Turn)
			}
			action = c[0].ActionID
		}
	}
	second := e.doCtx(t, ctx, http.MethodGet, "/admin/live", "", "Authorization: Bearer "+keysAdmin)
	if m := newStreamReader(t, second).next(t); len(m.Turns) != 1 || m.Turns[0].Calls[0].Status != "waiting_approval" {
		t.Errorf("a second reader's snapshot: %+v", m)
	}
	if code, _ := e.jsonDo(t, http.MethodGet, "/admin/live", "", appKey); code != http.StatusForbidden {
		t.Errorf("a client key on /admin/live: %d, want 403", code)
	}

	if code, a := e.jsonDo(t, http.MethodPost, "/v1/actions/"+action+"/approve", "", keysAdmin); code != 200 {
		t.Fatalf("approve from the live view: %d %v", code, a)
	}
	for _, want := range []string{"approval.resolved", "call.finished", "round.started", "turn.ended"} {
		if m := lv.next(t); m.Type != want {
			t.Fatalf("got %+v, want %s", m, want)
		} else if want == "round.started" && m.Turn.Round != 2 {
			t.Errorf("round.started says round %d", m.Turn.Round)
		} else if want == "call.finished" && len(m.Turn.Calls) != 0 {
			t.Errorf("a finished call still shown: %+v", m.Turn)
		}
	}
	turn.until(t, "[DONE]")
}

// newStreamReader reads resp's events; the body is closed when the test
// ends.
func newStreamReader(t *testing.T, resp *http.Response) *streamReader {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	t.Cleanup(func() { resp.Body.Close() })
	return &streamReader{resp: resp, sc: sc}
}
