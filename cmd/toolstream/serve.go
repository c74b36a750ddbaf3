package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/loop"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/toolhost"
)

// Interface guards: toolhost implements what proxy and loop consume.
var (
	_ proxy.Tools       = (*toolhost.Host)(nil)
	_ loop.ModeMemory   = (*toolhost.Store)(nil)
	_ loop.HistoryStore = (*toolhost.Store)(nil)
)

// shutdownGrace is how long running streams may finish after a signal.
const shutdownGrace = 30 * time.Second

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", os.Getenv("TOOLSTREAM_CONFIG"), "config file (default ./toolstream.yaml if present)")
	listen := fs.String("listen", os.Getenv("TOOLSTREAM_LISTEN"), "listen address, overrides the config's listen")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	cfg, err := loadConfig(*file)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	// Validated here, not only by Load: the built-in defaults are not
	// validated, and -listen may move listen off loopback, which the
	// open-proxy rule (SPEC §2) must see.
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	// Every secret of cfg is masked in every line (SPEC §9).
	log := slog.New(proxy.MaskingHandler(newLogger(cfg.Log, stderr).Handler(), cfg))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runServer(ctx, cfg, log); err != nil {
		log.Error("serve", "error", err)
		return exitFail
	}
	return exitOK
}

// loadConfig reads file, or ./toolstream.yaml when no file is named and it
// exists, or falls back to the built-in defaults (SPEC §1).
func loadConfig(file string) (*config.Config, error) {
	if file != "" {
		return config.Load(file)
	}
	if _, err := os.Stat("toolstream.yaml"); err == nil {
		return config.Load("toolstream.yaml")
	}
	return config.Builtin(os.LookupEnv), nil
}

func newLogger(lc config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(lc.Level))
	opts := &slog.HandlerOptions{Level: level}
	if lc.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// runServer serves until ctx is done, then lets running streams finish for
// shutdownGrace before cutting them.
func runServer(ctx context.Context, cfg *config.Config, log *slog.Logger) error {
	store, err := toolhost.OpenStore(cfg.Storage, toolhost.StoreOptions{Logger: log})
	if err != nil {
		return fmt.Errorf("opening storage %s: %w", cfg.Storage.Path, err)
	}
	defer store.Close() // last: after the server stopped writing to it
	host, err := toolhost.New(cfg.Tools, toolhost.Options{ToolTimeout: cfg.Loop.ToolTimeout, Logger: log})
	if err != nil {
		return err
	}
	defer host.Close()
	srv, err := proxy.New(cfg, proxy.Options{Logger: log, Tools: host, Modes: store, History: store, Ready: store.Ready})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: streams are long. The SSE writer pushes an
		// idle write deadline forward before every write instead.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if len(cfg.Upstreams) == 0 {
		log.Warn("no upstreams configured: set OPENAI_BASE_URL or write a config file (see config.example.yaml)")
	}
	log.Info("listening", "addr", ln.Addr().String(), "config", cfg.File, "upstreams", len(cfg.Upstreams), "tools", len(cfg.Tools))

	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
