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
	"sync"
	"syscall"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
	"github.com/toolstream/toolstream/toolhost/openapi"
)

// cutWait bounds the wait for cut requests to end once shutdown_grace is
// over: their handlers write one last event and return.
const cutWait = 5 * time.Second

func serve(args []string, stderr io.Writer) int {
	// From the first moment: SIGHUP reloads (its default action would
	// kill the process), SIGTERM and SIGINT shut down gracefully. Signals
	// that arrive while starting wait in the channel.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flagged := fs.String("config", os.Getenv("TOOLSTREAM_CONFIG"), "config file (default ./toolstream.yaml); also a plain argument")
	listen := fs.String("listen", os.Getenv("TOOLSTREAM_LISTEN"), "listen address, overrides the config's listen")
	file, err := configArg(fs, args, flagged)
	if err != nil {
		return exitUsage
	}
	if file, err = findConfig(file); err != nil {
		fmt.Fprintln(stderr, "toolstream serve:", err)
		return exitFail
	}
	cfg, err := loadConfig(file, *listen)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	// Every secret of cfg is masked in every line; a reload updates the set.
	log := slog.New(proxy.MaskingHandler(newLogger(cfg.Log, stderr).Handler(), cfg))
	oas, err := loadOpenAPI(context.Background(), cfg, log)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	r := &reloader{file: file, listen: *listen, cfg: cfg, log: log, openAPI: oas}
	if err := runServer(sigs, r); err != nil {
		fmt.Fprintln(stderr, "toolstream serve:", err)
		return exitFail
	}
	// Logged here, once runServer's deferred closes (storage, MCP
	// servers, tracing) are done, so that it is the last line: whoever
	// reads it knows the process has nothing left to do.
	r.log.Info("stopped")
	return exitOK
}

// loadConfig reads file and applies -listen. It validates again after the
// override: -listen may move listen off loopback, which the open-proxy
// rule (docs/configuration.md) must see.
func loadConfig(file, listen string) (*config.Config, error) {
	cfg, err := config.Load(file)
	if err != nil {
		return nil, err
	}
	if listen != "" {
		cfg.Listen = listen
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
	}
	return cfg, nil
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

// runServer serves r's configuration, reloading it on SIGHUP, until SIGTERM
// or SIGINT; then it shuts down (see shutdown) and closes storage last.
func runServer(sigs <-chan os.Signal, r *reloader) error {
	cfg, log := r.cfg, r.log
	// Listen first: a port in use is refused before storage is touched.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return listenError(cfg.Listen, err, "set listen / -listen to a free port")
	}
	defer ln.Close() // in case serving never starts; Serve closes it otherwise
	stopPprof, err := startPprof(log)
	if err != nil {
		return err
	}
	defer stopPprof()
	// instance marks the call records and actions of this process, so
	// the next start-up knows which calls were left started.
	st, err := wiring.Open(context.Background(), cfg.Storage, log)
	if err != nil {
		return err
	}
	// Last: after the server stopped writing to it. Turn records and
	// stored responses written while storage failed are tried once more
	// first.
	defer st.Close()
	log = log.With("instance", st.Instance)
	r.log = log
	host, err := toolhost.New(configTools(cfg), st.Host(toolhost.Options{
		ToolTimeout:     cfg.Loop.ToolTimeout,
		Logger:          log,
		ApprovalTimeout: cfg.Loop.ApprovalTimeout,
		WebhookAllow:    cfg.Auth.WebhookAllow,
		Policies:        cfg.Policies,
	}))
	if err != nil {
		return err
	}
	defer host.Close()
	if err := host.LoadRuntimeTools(context.Background()); err != nil {
		return fmt.Errorf("loading runtime tools: %w", err)
	}
	// What other replicas sharing the store change (approvals decided,
	// runtime tools) reaches this one; stopped before the store closes.
	defer host.Follow(st.Store)()
	// MCP servers connect in the background: a slow or broken one never
	// holds up start-up, its tools appear when it is up. Closed before the
	// tool host (defers run last-first).
	mcps := mcp.New(host, mcp.Options{Log: log})
	defer mcps.Close()
	mcps.Apply(cfg.MCPServers, cfg.Loop.ToolTimeout)
	r.oas = openapi.NewSources(host)
	if err := r.oas.Apply(r.openAPI); err != nil {
		return err
	}
	logSkipped(log, cfg, r.openAPI)
	opts := st.Proxy(proxy.Options{Logger: log, Version: Version}, host, mcps)
	tp, err := newTracing(context.Background(), cfg.Otel, log)
	if err != nil {
		return fmt.Errorf("otel: %w", err)
	}
	if tp != nil {
		// Deferred before the server's Close: the last spans are sent
		// once every request has ended.
		defer stopTracing(tp, log)
		opts.Tracing = tp
		log.Info("tracing", "exporter", cfg.Otel.Exporter, "endpoint", cfg.Otel.Endpoint, "sample_ratio", cfg.Otel.SampleRatio)
	}
	srv, err := proxy.New(cfg, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	r.host, r.srv, r.mcp = host, srv, mcps
	hs := newHTTPServer(srv, log)
	logStart(log, r.file, cfg, ln.Addr())
	return serveUntilStopped(hs, proxy.Listener(hs, ln), srv, sigs, r)
}

// newHTTPServer serves h with timeouts fit for long streams.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: streams are long. The SSE writer pushes an
		// idle write deadline forward before every write instead.
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// logStart logs what an operator checks first: a missing upstream, the
// config's warnings, and the "listening" line.
func logStart(log *slog.Logger, file string, cfg *config.Config, addr net.Addr) {
	if len(cfg.Upstreams) == 0 {
		log.Warn("no upstreams configured: add one to " + file + " (see config.example.yaml)")
	}
	logWarnings(log, cfg)
	// Version and commit on the line every operator looks for, so that a
	// log pasted into a bug report says what was running.
	b := currentBuild()
	log.Info("listening", "addr", addr.String(), "config", cfg.File, "upstreams", len(cfg.Upstreams), "tools", len(cfg.Tools),
		"openapi_tools", len(cfg.OpenAPITools), "version", b.versionString(), "commit", b.commitString())
}

// serveUntilStopped serves ln, reloading r on SIGHUP, until Serve fails or
// SIGTERM or SIGINT arrives; then it shuts down (see stopServing).
func serveUntilStopped(hs *http.Server, ln net.Listener, srv *proxy.Server, sigs <-chan os.Signal, r *reloader) error {
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	for {
		select {
		case err := <-errc:
			return err
		case sig := <-sigs:
			if sig == syscall.SIGHUP {
				r.reload()
				continue
			}
			return stopServing(hs, srv, sigs, sig, r.cfg.ShutdownGrace, r.log, errc)
		}
	}
}

// stopServing shuts down on sig (see shutdown) and waits for Serve, whose
// result errc carries, to return.
func stopServing(hs *http.Server, srv *proxy.Server, sigs <-chan os.Signal, sig os.Signal, grace time.Duration, log *slog.Logger, errc <-chan error) error {
	// Logged once the listener is closed, so whoever reads the line can
	// count on nothing new being accepted. Shutdown runs its hooks on
	// each call, in goroutines of their own, and shutdown calls it twice
	// when it cuts streams: once only, and waited for before returning,
	// so that it never comes after "stopped".
	var once sync.Once
	logged := make(chan struct{})
	hs.RegisterOnShutdown(func() {
		once.Do(func() {
			log.Info("shutting down", "signal", sig.String(), "grace", grace.String())
			close(logged)
		})
	})
	err := shutdown(hs, srv, sigs, grace, log)
	<-logged
	if err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// listenError says what to do about the most common reason listen fails;
// other says how the command is pointed at another port.
func listenError(addr string, err error, other string) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen %s: address already in use — another process (maybe another toolstream) is listening there; stop it or %s", addr, other)
	}
	return fmt.Errorf("listen %s: %w", addr, err)
}

// shutdown stops accepting connections at once and lets open streams and
// running tools finish within grace (a second SIGTERM or SIGINT ends the
// wait). What is still running then is cut (proxy.Server.CutStreams): each
// open stream gets one shutting_down error event, running tool calls are
// cancelled. Once the cut handlers have returned, their connections are
// closed.
func shutdown(hs *http.Server, srv *proxy.Server, sigs <-chan os.Signal, grace time.Duration, log *slog.Logger) error {
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case sig := <-sigs:
				if sig == syscall.SIGHUP {
					log.Warn("not reloading: shutting down")
					continue
				}
				log.Warn("second signal: not waiting for open streams", "signal", sig.String())
				cancel()
				return
			case <-done:
				return
			}
		}
	})
	err := hs.Shutdown(gctx)
	if err == nil {
		// Streams that left their handlers are no connections of hs's.
		err = srv.Drain(gctx)
	}
	close(done)
	wg.Wait()
	if err == nil {
		return nil
	}
	cctx, ccancel := context.WithTimeout(context.Background(), cutWait)
	defer ccancel()
	n, cerr := srv.CutStreams(cctx)
	log.Warn("open requests cut", "requests", n)
	if cerr != nil {
		log.Error("cut requests did not end", "error", cerr)
	}
	// The cut handlers wrote their last event; Shutdown closes each
	// connection as it goes idle, Close whatever is left.
	if err := hs.Shutdown(cctx); err != nil {
		return hs.Close()
	}
	return nil
}

// configTools are cfg's tools with loop.tool_timeout written into each
// webhook that sets no timeout of its own, so that a reload changing
// loop.tool_timeout reaches them (the tool host reads its own default
// only at start-up).
func configTools(cfg *config.Config) []config.Tool {
	tools := make([]config.Tool, len(cfg.Tools))
	for i, t := range cfg.Tools {
		if t.Webhook != nil && t.Webhook.Timeout <= 0 {
			w := *t.Webhook
			w.Timeout = t.Timeout(cfg.Loop)
			t.Webhook = &w
		}
		tools[i] = t
	}
	return tools
}

// logWarnings logs what "toolstream check" would warn about, each as it
// prints it (file:line:col): a likely mistake that still loads.
func logWarnings(log *slog.Logger, cfg *config.Config) {
	for _, p := range cfg.Warnings {
		log.Warn("config warning", "problem", p.String())
	}
}
