package toolhost_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// pipeNet is an in-memory network for synctest bubbles: goroutines blocked
// on loopback sockets are not durably blocked, so the bubble's clock could
// not advance past a tool timeout or a retry backoff. Conns are net.Pipe
// pairs; the server end is served by a real http.Server, the client end
// used by a real http.Transport, so the code under test is unchanged.
type pipeNet struct {
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
	failDials atomic.Int32 // dials left to refuse
	dials     atomic.Int32
	requests  atomic.Int32
}

// newPipeNet serves handler on a fresh in-memory network and returns a
// client dialing it. Call it inside the bubble.
func newPipeNet(t *testing.T, handler http.HandlerFunc) (*pipeNet, *http.Client) {
	n := &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.requests.Add(1)
		io.ReadAll(r.Body) // as receivers do; see TestCancelledContext
		handler(w, r)
	})}
	go srv.Serve(n)
	tr := &http.Transport{DialContext: n.dial}
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return n, &http.Client{Transport: tr}
}

func (n *pipeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.dials.Add(1)
	if n.failDials.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
	}
	client, server := net.Pipe()
	select {
	case n.conns <- server:
		return client, nil
	case <-ctx.Done():
	case <-n.closed:
	}
	client.Close()
	server.Close()
	return nil, &net.OpError{Op: "dial", Net: network, Err: net.ErrClosed}
}

func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

func (n *pipeNet) Close() error {
	n.closeOnce.Do(func() { close(n.closed) })
	return nil
}

func (n *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// statuses answers with the given statuses in turn, then 200 {"ok":true}.
func statuses(codes ...int) http.HandlerFunc {
	var i atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if n := int(i.Add(1)) - 1; n < len(codes) {
			w.WriteHeader(codes[n])
			return
		}
		io.WriteString(w, `{"ok":true}`)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name         string
		idempotent   bool
		failDials    int32
		handler      http.HandlerFunc
		wantCode     string // "" for success
		wantRequests int32
		wantDials    int32 // answered requests reuse the keep-alive connection
	}{
		{"idempotent 503 then 200", true, 0, statuses(503), "", 2, 1},
		{"idempotent 502 504 then 200", true, 0, statuses(502, 504), "", 3, 1},
		{"idempotent gives up after 2 retries", true, 0, statuses(503, 503, 503), toolhost.CodeAPIError, 3, 1},
		{"idempotent 500 is not retried", true, 0, statuses(500), toolhost.CodeAPIError, 1, 1},
		{"idempotent 429 is not retried", true, 0, statuses(429), toolhost.CodeAPIError, 1, 1},
		{"non-idempotent 503 sent once", false, 0, statuses(503), toolhost.CodeAPIError, 1, 1},
		{"idempotent connect error retried", true, 1, statuses(), "", 1, 2},
		{"idempotent connect errors exhaust retries", true, 3, statuses(), toolhost.CodeExecutionFailed, 0, 3},
		{"non-idempotent connect error not retried", false, 1, statuses(), toolhost.CodeExecutionFailed, 0, 1},
		{"failure after the request was written not retried", true, 0, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // the webhook got the call, then the connection broke
			}
		}, toolhost.CodeExecutionFailed, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n, client := newPipeNet(t, tt.handler)
				n.failDials.Store(tt.failDials)
				tool := weatherTool("http://webhook.test/weather")
				tool.Idempotent = tt.idempotent
				h := newHost(t, []config.Tool{tool}, toolhost.Options{Client: client})

				start := time.Now()
				res := execute(t, h, weatherCall(`{"city":"Paris"}`))

				gotCode := ""
				if res.Err != nil {
					gotCode = res.Err.Code
				}
				if gotCode != tt.wantCode {
					t.Errorf("code %q (%v), want %q", gotCode, res.Err, tt.wantCode)
				}
				if got := n.requests.Load(); got != tt.wantRequests {
					t.Errorf("webhook got %d requests, want %d", got, tt.wantRequests)
				}
				if got := n.dials.Load(); got != tt.wantDials {
					t.Errorf("%d dials, want %d", got, tt.wantDials)
				}
				// Backoff: retries wait (jittered), a single send does not.
				sends := max(tt.wantRequests, tt.wantDials)
				if waited := time.Since(start); (sends > 1) != (waited > 0) {
					t.Errorf("took %v for %d sends", waited, sends)
				}
			})
		})
	}
}

func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		observed := make(chan error, 1)
		_, client := newPipeNet(t, func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			observed <- r.Context().Err()
		})
		tool := weatherTool("http://webhook.test/weather")
		tool.Webhook.Timeout = 10 * time.Second
		h := newHost(t, []config.Tool{tool}, toolhost.Options{Client: client, ToolTimeout: time.Hour})

		res := execute(t, h, weatherCall(`{"city":"Paris"}`))
		if res.Err == nil || res.Err.Code != toolhost.CodeTimeout || res.Status != toolhost.StatusError {
			t.Fatalf("result %s %v, want TIMEOUT error", res.Status, res.Err)
		}
		if !strings.Contains(res.Err.Message, "10s") {
			t.Errorf("message %q does not name the timeout", res.Err.Message)
		}
		if res.Duration != 10*time.Second {
			t.Errorf("Duration = %v, want exactly the 10s timeout", res.Duration)
		}
		if err := <-observed; err == nil {
			t.Error("the webhook's request context was not cancelled")
		}
	})
}

func TestDefaultToolTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newPipeNet(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
		h := newHost(t, []config.Tool{weatherTool("http://webhook.test/")}, toolhost.Options{Client: client})
		res := execute(t, h, weatherCall(`{"city":"Paris"}`))
		if res.Err == nil || res.Err.Code != toolhost.CodeTimeout || res.Duration != toolhost.DefaultToolTimeout {
			t.Errorf("result %v after %v, want TIMEOUT after %v", res.Err, res.Duration, toolhost.DefaultToolTimeout)
		}
	})
}

// The tool timeout bounds the whole call: retries and their backoff
// included, an idempotent tool failing forever still ends in time.
func TestTimeoutBoundsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, client := newPipeNet(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(150 * time.Millisecond):
				w.WriteHeader(http.StatusServiceUnavailable)
			case <-r.Context().Done():
			}
		})
		tool := weatherTool("http://webhook.test/")
		tool.Idempotent = true
		tool.Webhook.Timeout = 400 * time.Millisecond
		h := newHost(t, []config.Tool{tool}, toolhost.Options{Client: client})

		res := execute(t, h, weatherCall(`{"city":"Paris"}`))
		if res.Err == nil || (res.Err.Code != toolhost.CodeAPIError && res.Err.Code != toolhost.CodeTimeout) {
			t.Errorf("result %v, want API_ERROR or TIMEOUT", res.Err)
		}
		if res.Duration > 400*time.Millisecond {
			t.Errorf("Duration = %v, beyond the 400ms timeout", res.Duration)
		}
		if got := n.requests.Load(); got < 2 {
			t.Errorf("%d requests, want a retry within the timeout", got)
		}
	})
}

// A client leaving during the retry backoff ends the call at once.
func TestCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n, client := newPipeNet(t, statuses(503, 503, 503))
		tool := weatherTool("http://webhook.test/")
		tool.Idempotent = true
		h := newHost(t, []config.Tool{tool}, toolhost.Options{Client: client})

		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := h.Execute(ctx, weatherCall(`{"city":"Paris"}`))
			done <- err
		}()
		synctest.Wait() // the first 503 is in; Execute sleeps in backoff
		cancel()
		if err := <-done; err == nil {
			t.Error("Execute returned no error for a cancelled call")
		}
		if got := n.requests.Load(); got != 1 {
			t.Errorf("%d requests, want 1", got)
		}
	})
}
