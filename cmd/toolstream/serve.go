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
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/backend"
)

// Interface guards: toolhost implements what proxy and loop consume.
var (
	_ proxy.Tools        = (*toolhost.Host)(nil)
	_ loop.ModeMemory    = store.Store(nil)
	_ loop.HistoryStore  = store.Store(nil)
	_ toolhost.Records   = store.Store(nil)
	_ proxy.Records      = store.Store(nil)
	_ proxy.Approvals    = (*toolhost.Host)(nil)
	_ toolhost.ToolStore = store.Store(nil)
	_ proxy.RuntimeTools = (*toolhost.Host)(nil)
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
	// instance marks the call records and actions of this process, so
	// the next start-up knows which calls were left started.
	st, instance, err := backend.Open(ctx, cfg.Storage, backend.Options{Logger: log})
	if err != nil {
		return err
	}
	defer st.Close() // last: after the server stopped writing to it
	log = log.With("instance", instance)
	host, err := toolhost.New(cfg.Tools, toolhost.Options{
		ToolTimeout:     cfg.Loop.ToolTimeout,
		Logger:          log,
		Records:         st,
		Instance:        instance,
		ApprovalTimeout: cfg.Loop.ApprovalTimeout,
		ToolStore:       st,
		WebhookAllow:    cfg.Auth.WebhookAllow,
	})
	if err != nil {
		return err
	}
	defer host.Close()
	if err := host.LoadRuntimeTools(ctx); err != nil {
		return fmt.Errorf("loading runtime tools: %w", err)
	}
	srv, err := proxy.New(cfg, proxy.Options{
		Logger: log, Tools: host, Modes: st, History: st, Ready: st.Ready,
		Records: st, Approvals: host, ApprovalsPending: host.PendingApprovals,
		RuntimeTools: host,
	})
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
