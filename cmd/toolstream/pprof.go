package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// pprofEnv names the variable that turns on Go's profiler endpoints, on
// an address of their own: profiles show arguments and memory, so they
// are never served on the API's listener, and only on loopback.
const pprofEnv = "TOOLSTREAM_PPROF"

// startPprof serves /debug/pprof/ on $TOOLSTREAM_PPROF when it is set, and
// returns how to stop it.
func startPprof(log *slog.Logger) (func(), error) {
	addr := os.Getenv(pprofEnv)
	if addr == "" {
		return func() {}, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%s=%s: the profiler listens on a loopback address only, e.g. 127.0.0.1:6060", pprofEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pprofEnv, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("profiler", "error", err)
		}
	}()
	log.Info("profiler listening", "addr", ln.Addr().String())
	return func() { srv.Close(); <-done }, nil
}
