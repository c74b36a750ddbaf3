package upstreamtest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func post(ctx context.Context, c *http.Client, url, body string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	return c.Do(req)
}

// TestPace: a paced round waits between its events, and a client that
// leaves during a wait ends it there.
func TestPace(t *testing.T) {
	s := upstreamtest.New(upstreamtest.Round{Events: upstreamtest.Text("c1", "m", "a", "b"), Pace: time.Hour})
	defer s.Close()
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := post(ctx, c, s.URL, `{"stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "data: ") {
		t.Fatalf("first event: %q", sc.Text())
	}
	cancel() // during the hour's wait before the second
	select {
	case <-s.Cancelled():
	case <-time.After(10 * time.Second):
		t.Fatal("the paced stream did not end when its client left")
	}
}

// TestScriptGetsItsRequest: each request is answered from its own body,
// however many arrive at once, and Keep bounds what is recorded.
func TestScriptGetsItsRequest(t *testing.T) {
	s := upstreamtest.NewFunc(func(r upstreamtest.Request) upstreamtest.Round {
		return upstreamtest.Round{Events: upstreamtest.Text("c", "m", string(r.Body))}
	})
	defer s.Close()
	s.Keep(3)
	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			body := fmt.Sprintf(`{"stream":true,"n":%d}`, i)
			resp, err := post(t.Context(), c, s.URL, body)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if want := fmt.Sprintf(`\"n\":%d}`, i); !strings.Contains(string(b), want) {
				t.Errorf("request %d answered %s", i, b)
			}
		})
	}
	wg.Wait()
	if n := len(s.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}
