package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/toolstream/toolstream/config"
)

// countingServer is an httptest server that counts the connections it
// accepted.
type countingServer struct {
	*httptest.Server
	mu    sync.Mutex
	conns int
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// TestStreamKeepsConnection: a round read to its [DONE] and closed leaves
// its connection for the next round — the next request reuses it rather
// than connecting again.
func TestStreamKeepsConnection(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[]}\n\n")
		w.(http.Flusher).Flush()
		io.WriteString(w, "data: [DONE]\n\n")
		w.(http.Flusher).Flush()
	})
	cfg := config.DefaultUpstreamEntry()
	cfg.Name, cfg.BaseURL = "up", srv.URL+"/v1"
	u, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	for i := range 3 {
		st, err := u.Open(context.Background(), []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		for data, err := range st.Events() {
			if err != nil {
				t.Fatal(err)
			}
			if data == "[DONE]" {
				break
			}
		}
		st.Close()
		u.h1.WaitFinishing() // the terminator is read after the close
		if n := srv.accepted(); n != 1 {
			t.Fatalf("round %d: %d connections, want 1", i+1, n)
		}
	}
}

// TestBaseURLQuery: a base_url's query (Azure's api-version) goes with
// every request, after the path — not pasted into it, not dropped.
func TestBaseURLQuery(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.RequestURI)
		mu.Unlock()
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"data":[]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
	})
	cfg := config.DefaultUpstreamEntry()
	cfg.Name, cfg.BaseURL = "az", srv.URL+"/openai/v1?api-version=2024-10-21"
	u, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	st, err := u.Open(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for range st.Events() {
	}
	st.Close()
	u.ListModels(context.Background())
	want := []string{"POST /openai/v1/chat/completions?api-version=2024-10-21", "GET /openai/v1/models?api-version=2024-10-21"}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("requests %q, want %q", got, want)
	}
}
