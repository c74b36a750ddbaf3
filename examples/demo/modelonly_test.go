package demo

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/examples/internal/exampletest"
)

// TestServeModel: -model-only serves the scripted model alone at the
// address it prints, as an upstream: it lists itself, streams an answer
// ending in [DONE] (paced, with -pace), and stops with its context.
func TestServeModel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &exampletest.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- ServeModel(ctx, "127.0.0.1:0", time.Millisecond, out) }()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if time.Now().After(deadline) {
			t.Fatalf("no URL printed: %q", out.String())
		}
		if _, rest, ok := strings.Cut(out.String(), "serves "); ok {
			base, _, _ = strings.Cut(rest, " ")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasSuffix(base, "/v1") || !strings.Contains(out.String(), "tool_mode: text") {
		t.Errorf("printed %q", out.String())
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), `"demo-model"`) {
		t.Errorf("/models: %s", b)
	}
	resp.Body.Close()
	resp, err = client.Post(base+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"demo-model","stream":true,"messages":[{"role":"user","content":"What is on my list?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, d)
		}
	}
	resp.Body.Close()
	if len(events) < 3 || events[len(events)-1] != "[DONE]" || !strings.Contains(strings.Join(events, ""), `"finish_reason":"stop"`) {
		t.Errorf("stream %q, want an answer, its finish and [DONE]", events)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeModel: %v", err)
	}
}
