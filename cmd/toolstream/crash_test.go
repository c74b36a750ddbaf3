package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// TestCrashMidCallIsOutcomeUnknown: serve is killed with SIGKILL while a
// webhook holds a call — after the started record, before the result.
// After a restart the audit log shows the call outcome_unknown, and the
// webhook saw exactly one request: nothing ran it again.
func TestCrashMidCallIsOutcomeUnknown(t *testing.T) {
	var hits atomic.Int32
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hook.Close)
	t.Cleanup(func() { close(release) })

	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding it. ", call)})
	t.Cleanup(up.Close)

	dir := t.TempDir()
	file := createTaskConfig(t, dir, up.URL, hook.URL+"/create_task", "")

	first := startServe(t, file)
	go func() {
		resp, err := http.Post(first.url+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"add gym"}]}`))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	select {
	case <-arrived:
	case <-t.Context().Done():
		t.Fatal("the webhook never got the call")
	}
	first.cmd.Process.Kill() // SIGKILL: no shutdown, no completed record
	<-first.exited

	second := startServe(t, file)
	var page struct {
		Data []struct {
			Status   string `json:"status"`
			Executed bool   `json:"executed"`
		} `json:"data"`
	}
	adminGet(t, second.url+"/admin/calls", &page)
	if len(page.Data) != 1 || page.Data[0].Status != "outcome_unknown" || !page.Data[0].Executed {
		t.Fatalf("audit log after the crash = %+v, want one executed call, outcome_unknown", page.Data)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("webhook requests = %d, want exactly 1", n)
	}
}

// TestCrashDuringApprovalKeepsTheCall: serve is killed with SIGKILL while a
// call waits for its approval. After a restart the audit log has the call,
// expired and never executed, beside its expired action. Before, the call
// was written only once decided, so the kill left the action and no record.
func TestCrashDuringApprovalKeepsTheCall(t *testing.T) {
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(hook.Close)
	call := "<tool_call>\n{\"name\": \"create_task\", \"arguments\": {\"title\": \"Gym\"}}\n</tool_call>"
	up := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "Adding it. ", call)})
	t.Cleanup(up.Close)

	dir := t.TempDir()
	file := createTaskConfig(t, dir, up.URL, hook.URL, "approval: always")

	first := startServe(t, file)
	s := first.open(t, "add gym")
	for {
		ev := s.next(t, 1)[0]
		if strings.Contains(ev, `"approval.requested"`) {
			break
		}
	}
	first.cmd.Process.Kill() // SIGKILL while the call waits
	<-first.exited

	second := startServe(t, file)
	var calls struct {
		Data []struct {
			Status   string `json:"status"`
			Executed bool   `json:"executed"`
			Approval *struct {
				ActionID  string `json:"action_id"`
				Decision  string `json:"decision"`
				DecidedBy string `json:"decided_by"`
			} `json:"approval"`
		} `json:"data"`
	}
	adminGet(t, second.url+"/admin/calls?status=expired", &calls) // the filter knows the status
	if len(calls.Data) != 1 || calls.Data[0].Status != "expired" || calls.Data[0].Executed ||
		calls.Data[0].Approval == nil || calls.Data[0].Approval.Decision != "expired" || calls.Data[0].Approval.ActionID == "" {
		t.Fatalf("audit log after a kill during the approval = %+v, want one call, expired, not executed", calls.Data)
	}
	var action struct {
		Status string `json:"status"`
	}
	adminGet(t, second.url+"/v1/actions/"+calls.Data[0].Approval.ActionID, &action)
	if action.Status != "expired" {
		t.Errorf("its action = %+v, want expired", action)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("webhook requests = %d, want none", n)
	}
}

// adminGet decodes the JSON answer of GET url with the admin key into v.
func adminGet(t *testing.T, url string, v any) {
	t.Helper()
	st, body := call(t, http.MethodGet, url, "sk-admin", "")
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, st, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatal(err)
	}
}

// createTaskConfig writes, in dir, a config with storage in dir/data, a
// text-mode upstream at upURL and a create_task webhook at hookURL;
// toolKey, when set, is one more key of the tool's entry. It returns the
// file.
func createTaskConfig(t *testing.T, dir, upURL, hookURL, toolKey string) string {
	t.Helper()
	if toolKey != "" {
		toolKey = "    " + toolKey + "\n"
	}
	file := filepath.Join(dir, "toolstream.yaml")
	writeFile(t, file, `listen: 127.0.0.1:0
auth:
  admin_keys: ["sk-admin"]
storage:
  path: `+filepath.Join(dir, "data")+`
upstreams:
  - name: up
    base_url: `+upURL+`
    models: ["*"]
    tool_mode: text
tools:
  - name: create_task
`+toolKey+`    webhook: {url: "`+hookURL+`"}
`)
	return file
}
