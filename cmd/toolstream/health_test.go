package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHealth: the probe exits 0 only when /healthz answers 200, on the
// address from -listen or from the config file.
func TestHealth(t *testing.T) {
	t.Setenv("TOOLSTREAM_LISTEN", "")
	t.Setenv("TOOLSTREAM_CONFIG", "")
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	cfg := filepath.Join(t.TempDir(), "toolstream.yaml")
	os.WriteFile(cfg, []byte("listen: "+addr+"\n"), 0o644)
	dead := freeAddr(t)

	tests := []struct {
		name   string
		args   []string
		status int
		code   int
		out    string
	}{
		{"listen", []string{"health", "-listen", addr}, 200, exitOK, "http://" + addr + "/healthz: ok"},
		{"all interfaces is probed on loopback", []string{"health", "-listen", "0.0.0.0:" + port}, 200, exitOK, "http://127.0.0.1:" + port + "/healthz: ok"},
		{"port only", []string{"health", "-listen", ":" + port}, 200, exitOK, "ok"},
		{"config file", []string{"health", cfg}, 200, exitOK, "ok"},
		{"not healthy", []string{"health", "-listen", addr}, 503, exitFail, "status 503"},
		{"nobody listening", []string{"health", "-listen", dead}, 200, exitFail, "connection refused"},
		{"no config", []string{"health", filepath.Join(t.TempDir(), "missing.yaml")}, 200, exitFail, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status = tt.status
			code, out, errs := runCmd(tt.args...)
			if code != tt.code || !strings.Contains(out+errs, tt.out) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", code, tt.code, out, errs, tt.out)
			}
		})
	}
}

func TestProbeAddr(t *testing.T) {
	for in, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		"0.0.0.0:8080":   "127.0.0.1:8080",
		"[::]:8080":      "[::1]:8080",
		"10.0.0.5:8080":  "10.0.0.5:8080",
		"localhost:9000": "localhost:9000",
	} {
		if got := probeAddr(in); got != want {
			t.Errorf("probeAddr(%q) = %q, want %q", in, got, want)
		}
	}
}

// freeAddr returns a loopback address nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
