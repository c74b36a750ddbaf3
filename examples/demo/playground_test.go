package demo

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer the demo writes to while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPlayground is demo -listen as a user points a client at it: the
// model is listed, a prompt without tasks gets a short plain answer and no
// tool activity, and one asking for tasks runs the task script.
func TestPlayground(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Out: out, Listen: addr}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("demo: %v", err)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "keeps serving") {
		if time.Now().After(deadline) {
			t.Fatalf("the demo never started serving:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	base := "http://" + addr + "/v1"

	if got := get(t, base+"/models"); !strings.Contains(got, `"id":"demo-model"`) {
		t.Errorf("/v1/models = %s, want demo-model listed", got)
	}
	for _, tc := range []struct {
		prompt string
		want   string
		tools  bool
	}{
		{"Say hello", "scripted demo model", false},
		{"What's the weather like?", "ask me to create some tasks", false},
		{"Put a dentist appointment on my task board", "Done! I created 3 tasks", true},
	} {
		body := `{"model":"demo-model","stream":true,"messages":[{"role":"user","content":"` + tc.prompt + `"}]}`
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(b)
		if !strings.HasSuffix(got, "data: [DONE]\n\n") {
			t.Errorf("%q: the stream did not complete:\n%s", tc.prompt, got)
		}
		if text := joinContent(got); !strings.Contains(text, tc.want) {
			t.Errorf("%q: the model said %q, want it to say %q", tc.prompt, text, tc.want)
		}
		if ran := strings.Contains(got, `"tool.started"`); ran != tc.tools {
			t.Errorf("%q: tools ran = %v, want %v", tc.prompt, ran, tc.tools)
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// joinContent joins the delta.content of an SSE body's chunks, with JSON
// escapes left as they are (enough to look for phrases).
func joinContent(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		_, rest, ok := strings.Cut(line, `"content":"`)
		if !ok {
			continue
		}
		if i := strings.Index(rest, `"}`); i >= 0 {
			b.WriteString(rest[:i])
		}
	}
	return b.String()
}
