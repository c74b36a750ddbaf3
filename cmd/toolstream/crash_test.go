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
	file := filepath.Join(dir, "toolstream.yaml")
	writeFile(t, file, `listen: 127.0.0.1:0
auth:
  admin_keys: ["sk-admin"]
storage:
  path: `+filepath.Join(dir, "data")+`
upstreams:
  - name: up
    base_url: `+up.URL+`
    models: ["*"]
    tool_mode: text
tools:
  - name: create_task
    webhook: {url: "`+hook.URL+`/create_task"}
`)

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
	req, _ := http.NewRequest("GET", second.url+"/admin/calls", nil)
	req.Header.Set("Authorization", "Bearer sk-admin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Data []struct {
			Status   string `json:"status"`
			Executed bool   `json:"executed"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].Status != "outcome_unknown" || !page.Data[0].Executed {
		t.Fatalf("audit log after the crash = %+v, want one executed call, outcome_unknown", page.Data)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("webhook requests = %d, want exactly 1", n)
	}
}
