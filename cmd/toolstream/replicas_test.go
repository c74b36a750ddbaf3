package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

// replicaScript is the model both replicas share: it calls the tool the
// user's words name, and answers once a tool result is in its history.
// Each request gets its own completion id, as a real server's would.
func replicaScript() func(upstreamtest.Request) upstreamtest.Round {
	var n atomic.Int32
	return func(r upstreamtest.Request) upstreamtest.Round {
		id := fmt.Sprintf("chatcmpl-%d", n.Add(1))
		say := func(parts ...string) upstreamtest.Round {
			return upstreamtest.Round{Events: upstreamtest.Text(id, "m", parts...)}
		}
		call := func(name, args string) string {
			return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
		}
		b := string(r.Body)
		switch {
		case strings.Contains(b, "and tomorrow"):
			return say("Noted.")
		case strings.Contains(b, "RESULT-"):
			return say("Done.")
		case strings.Contains(b, "add gym"):
			return say("Adding it. ", call("create_task", `{"title":"Gym"}`))
		case strings.Contains(b, "slow task"):
			return say("Adding it. ", call("create_task", `{"title":"slow"}`))
		case strings.Contains(b, "delete gym"):
			return say("Deleting it. ", call("delete_task", `{"title":"Gym"}`))
		case strings.Contains(b, "look up"):
			return say("Looking. ", call("lookup", `{"word":"hello"}`))
		}
		return say("Hello.")
	}
}

// replicaHooks serves the tools' webhooks; a create_task titled "slow"
// holds its request until the test ends, and arrives on slow.
type replicaHooks struct {
	*httptest.Server
	hits map[string]*atomic.Int32
	slow chan struct{}
	// last holds each tool's last request body (a string).
	last sync.Map
}

func (h *replicaHooks) lastBody(tool string) string {
	v, _ := h.last.Load(tool)
	s, _ := v.(string)
	return s
}

// awaitApproval reads s up to its approval.requested event and returns
// the action's id.
func awaitApproval(t *testing.T, s *stream) string {
	t.Helper()
	for {
		ev := s.next(t, 1)[0]
		if !strings.Contains(ev, `"approval.requested"`) {
			continue
		}
		var e struct {
			Toolstream struct {
				ActionID string `json:"action_id"`
			} `json:"toolstream"`
		}
		json.Unmarshal([]byte(ev), &e)
		if e.Toolstream.ActionID == "" {
			t.Fatalf("approval.requested without an action id: %s", ev)
		}
		return e.Toolstream.ActionID
	}
}

func newReplicaHooks(t *testing.T) *replicaHooks {
	h := &replicaHooks{hits: map[string]*atomic.Int32{}, slow: make(chan struct{}, 1)}
	release := make(chan struct{})
	for _, name := range []string{"create_task", "delete_task", "lookup"} {
		h.hits[name] = new(atomic.Int32)
	}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		body, _ := io.ReadAll(r.Body)
		h.hits[name].Add(1)
		h.last.Store(name, string(body))
		if strings.Contains(string(body), "slow") {
			h.slow <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprintf(w, `{"ok":true,"note":"RESULT-%s"}`, name)
	}))
	t.Cleanup(h.Close)
	t.Cleanup(func() { close(release) })
	return h
}

// replicaConfig is the file both replicas run: one PostgreSQL database,
// the scripted model in text mode, two config tools (delete_task needs
// approval) and runtime webhooks allowed on loopback.
func replicaConfig(t *testing.T, dsn, upURL, hookURL string) string {
	file := filepath.Join(t.TempDir(), "toolstream.yaml")
	writeFile(t, file, `listen: 127.0.0.1:0
auth:
  admin_keys: ["sk-admin"]
  keys: ["sk-client"]
  webhook_allow: ["127.0.0.1"]
storage:
  backend: postgres
  postgres: {dsn: "`+dsn+`", max_conns: 4}
upstreams:
  - name: up
    base_url: `+upURL+`
    models: ["*"]
    tool_mode: text
tools:
  - name: create_task
    webhook: {url: "`+hookURL+`/create_task"}
  - name: delete_task
    approval: always
    webhook: {url: "`+hookURL+`/delete_task"}
`)
	return file
}

// call sends method url with key and body, and returns the status and
// the body read whole.
func call(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// openChat starts a streamed chat turn of messages (JSON) on p.
func openChat(t *testing.T, p *proc, messages string) *stream {
	t.Helper()
	body := `{"model":"m","stream":true,"messages":` + messages + `}`
	req, _ := http.NewRequest(http.MethodPost, p.url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-client")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("chat on %s: %d %s", p.url, resp.StatusCode, b)
	}
	return &stream{resp: resp, br: bufio.NewReader(resp.Body)}
}

// visibleText is the assistant text of a chat stream's events.
func visibleText(t *testing.T, events []string) string {
	t.Helper()
	var sb strings.Builder
	for _, ev := range events {
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(ev), &c) == nil && len(c.Choices) > 0 {
			sb.WriteString(c.Choices[0].Delta.Content)
		}
	}
	return sb.String()
}

// within polls cond every 10 ms until it holds or d passes, and returns
// how long it took.
func within(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

// TestReplicas runs two serve processes on one PostgreSQL database, as
// two replicas behind a load balancer, and sends each step of a user's
// work to the replica that did not see the step before.
func TestReplicas(t *testing.T) {
	dsn := pgtest.Start(t)
	up := upstreamtest.NewFunc(replicaScript())
	t.Cleanup(up.Close)
	hooks := newReplicaHooks(t)
	file := replicaConfig(t, dsn, up.URL, hooks.URL)
	a, b := startServe(t, file), startServe(t, file)

	t.Run("StitchedOnTheOtherReplica", func(t *testing.T) {
		first := `[{"role":"user","content":"add gym"}]`
		text := visibleText(t, openChat(t, a, first).rest(t))
		if !strings.Contains(text, "Done.") || strings.Contains(text, "<tool_call>") {
			t.Fatalf("turn 1 on a: %q", text)
		}
		before := len(up.Requests())
		history, _ := json.Marshal([]map[string]string{
			{"role": "user", "content": "add gym"},
			{"role": "assistant", "content": text},
			{"role": "user", "content": "and tomorrow?"},
		})
		openChat(t, b, string(history)).rest(t)
		reqs := up.Requests()[before:]
		if len(reqs) != 1 {
			t.Fatalf("turn 2 on b made %d upstream requests, want 1", len(reqs))
		}
		if body := string(reqs[0].Body); !strings.Contains(body, "RESULT-create_task") || !strings.Contains(body, "create_task") {
			t.Errorf("turn 2's request from b does not hold turn 1's rounds (stitched from a's record):\n%s", body)
		}
	})

	t.Run("StoredResponseOnTheOtherReplica", func(t *testing.T) {
		st, body := call(t, http.MethodPost, a.url+"/v1/responses", "sk-client", `{"model":"m","input":"add gym"}`)
		var r struct {
			ID string `json:"id"`
		}
		if json.Unmarshal([]byte(body), &r); st != http.StatusOK || r.ID == "" {
			t.Fatalf("response on a: %d %s", st, body)
		}
		if st, body := call(t, http.MethodGet, b.url+"/v1/responses/"+r.ID, "sk-client", ""); st != http.StatusOK || !strings.Contains(body, r.ID) {
			t.Errorf("GET of a's response on b: %d %s", st, body)
		}
		before := len(up.Requests())
		st, body = call(t, http.MethodPost, b.url+"/v1/responses", "sk-client", `{"model":"m","input":"and tomorrow?","previous_response_id":"`+r.ID+`"}`)
		if st != http.StatusOK {
			t.Fatalf("continuing a's response on b: %d %s", st, body)
		}
		if reqs := up.Requests()[before:]; len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "RESULT-create_task") {
			t.Errorf("b's request for the continuation does not hold a's rounds: %d requests", len(reqs))
		}
	})

	t.Run("ApprovalOnBReleasesA", func(t *testing.T) {
		s := openChat(t, a, `[{"role":"user","content":"delete gym"}]`)
		actionID := awaitApproval(t, s)
		start := time.Now()
		if st, body := call(t, http.MethodPost, b.url+"/v1/actions/"+actionID+"/approve", "sk-admin", ""); st != http.StatusOK {
			t.Fatalf("approve on b: %d %s", st, body)
		}
		ev := s.next(t, 1)[0]
		t.Logf("a's stream went on %v after the approval on b", time.Since(start))
		rest := append([]string{ev}, s.rest(t)...)
		if text := visibleText(t, rest); !strings.Contains(text, "Done.") || hooks.hits["delete_task"].Load() != 1 {
			t.Errorf("after the approval on b, a's stream: %q, delete_task ran %d times; want it run once and the answer", text, hooks.hits["delete_task"].Load())
		}
	})

	t.Run("EditedApprovalOnBRunsOnA", func(t *testing.T) {
		// The edit travels in the action's row: a runs the call with it,
		// and the audit in PostgreSQL keeps the model's arguments too.
		before := hooks.hits["delete_task"].Load()
		s := openChat(t, a, `[{"role":"user","content":"delete gym"}]`)
		actionID := awaitApproval(t, s)
		if st, body := call(t, http.MethodPost, b.url+"/v1/actions/"+actionID+"/approve", "sk-admin", `{"arguments":{"title":"Gym (old)"}}`); st != http.StatusOK {
			t.Fatalf("edited approve on b: %d %s", st, body)
		}
		s.rest(t)
		if n := hooks.hits["delete_task"].Load() - before; n != 1 || !strings.Contains(hooks.lastBody("delete_task"), `"arguments":{"title":"Gym (old)"}`) {
			t.Fatalf("delete_task ran %d times, last with %s; want once, with the edit", n, hooks.lastBody("delete_task"))
		}
		_, body := call(t, http.MethodGet, b.url+"/admin/calls?tool=delete_task&limit=1", "sk-admin", "")
		var page struct {
			Data []struct {
				Arguments         map[string]string `json:"arguments"`
				ProposedArguments map[string]string `json:"proposed_arguments"`
			} `json:"data"`
		}
		json.Unmarshal([]byte(body), &page)
		if len(page.Data) != 1 || page.Data[0].Arguments["title"] != "Gym (old)" || page.Data[0].ProposedArguments["title"] != "Gym" {
			t.Errorf("the audit record on b: %s", body)
		}
	})

	t.Run("RuntimeToolFromAOnB", func(t *testing.T) {
		spec := `{"name":"lookup","description":"Looks a word up.","parameters":{"type":"object","properties":{"word":{"type":"string"}}},"webhook":{"url":"` + hooks.URL + `/lookup"}}`
		if st, body := call(t, http.MethodPost, a.url+"/admin/tools", "sk-admin", spec); st != http.StatusCreated {
			t.Fatalf("register on a: %d %s", st, body)
		}
		took := within(t, time.Second, "lookup listed on b", func() bool {
			_, body := call(t, http.MethodGet, b.url+"/admin/tools/lookup", "sk-admin", "")
			return strings.Contains(body, `"source":"runtime"`)
		})
		t.Logf("the runtime tool reached b in %v", took)
		text := visibleText(t, openChat(t, b, `[{"role":"user","content":"look up hello"}]`).rest(t))
		if !strings.Contains(text, "Done.") || hooks.hits["lookup"].Load() != 1 {
			t.Errorf("lookup through b: %q, webhook hits %d; want it called once", text, hooks.hits["lookup"].Load())
		}
	})

	t.Run("KeysEverywhere", func(t *testing.T) {
		st, body := call(t, http.MethodPost, a.url+"/admin/keys", "sk-admin", `{"name":"carol"}`)
		if st != http.StatusCreated {
			t.Fatalf("create key on a: %d %s", st, body)
		}
		var k struct {
			Key string `json:"key"`
		}
		json.Unmarshal([]byte(body), &k)
		took := within(t, time.Second, "carol's key accepted on b", func() bool {
			st, _ := call(t, http.MethodGet, b.url+"/v1/models", k.Key, "")
			return st == http.StatusOK
		})
		t.Logf("a key created on a worked on b after %v", took)
		if st, body := call(t, http.MethodDelete, b.url+"/admin/keys/carol", "sk-admin", ""); st != http.StatusNoContent {
			t.Fatalf("delete key on b: %d %s", st, body)
		}
		took = within(t, time.Second, "carol's key refused on a", func() bool {
			st, _ := call(t, http.MethodGet, a.url+"/v1/models", k.Key, "")
			return st == http.StatusUnauthorized
		})
		t.Logf("a key revoked on b was refused on a after %v", took)
	})

	t.Run("KilledMidCallIsOutcomeUnknownOnB", func(t *testing.T) {
		go func() {
			body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"slow task"}]}`
			req, _ := http.NewRequest(http.MethodPost, a.url+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer sk-client")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		select {
		case <-hooks.slow:
		case <-time.After(waitFor):
			t.Fatal("the slow call never reached its webhook")
		}
		a.cmd.Process.Kill() // SIGKILL: a's heartbeat stops with it
		<-a.exited
		type page struct {
			Data []struct {
				Status    string `json:"status"`
				Executed  bool   `json:"executed"`
				Arguments struct {
					Title string `json:"title"`
				} `json:"arguments"`
			} `json:"data"`
		}
		var got page
		took := within(t, 30*time.Second, "the killed call outcome_unknown on b", func() bool {
			_, body := call(t, http.MethodGet, b.url+"/admin/calls?tool=create_task&status=outcome_unknown", "sk-admin", "")
			got = page{}
			json.Unmarshal([]byte(body), &got)
			return len(got.Data) > 0
		})
		t.Logf("b marked a's call outcome_unknown %v after the kill", took)
		if len(got.Data) != 1 || got.Data[0].Arguments.Title != "slow" || !got.Data[0].Executed {
			t.Errorf("outcome_unknown calls = %+v, want the slow one, executed", got.Data)
		}
		if n := hooks.hits["create_task"].Load(); n != 3 { // Gym twice, then slow: never run again
			t.Errorf("create_task webhook requests = %d, want 3", n)
		}
	})
}
