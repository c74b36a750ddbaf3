package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/examples/tools"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/proxy/wiring"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
	"github.com/toolstream/toolstream/toolhost/store"
)

// Options configure a demo run. The zero value prints to nowhere.
type Options struct {
	// Out receives what the client sees; Raw prints the SSE lines as they
	// came instead of the readable rendering.
	Out io.Writer
	Raw bool
	// Listen, when set, keeps the proxy serving on that address after the
	// conversation, so other clients (curl, an SDK) can try it, until ctx
	// is done.
	Listen string
	// Log receives the proxy's log lines; nil discards them.
	Log *slog.Logger
	// ToolsFile, when set, is a config file whose tools the demo uses
	// instead of running the example tool servers itself: the scripted
	// model then calls tool servers the user started. Its
	// auth.webhook_allow joins the demo's loopback entries, so the tools
	// an admin registers at runtime may point where the file says; its
	// other keys are not used.
	ToolsFile string
	// Prompts, when set, are sent instead of the demo's conversation,
	// in order, each as a conversation of its own, against the same
	// tools: "Put a dentist appointment on my task board", then
	// "Delete task 1".
	Prompts []string
	// Pace, when set, makes the scripted model wait that long before each
	// chunk after the first, so a turn lasts long enough to be stopped or
	// watched (the console's Stop, its Live view).
	Pace time.Duration
}

// Prompt is the conversation the demo sends.
const Prompt = "Create three tasks for tomorrow: buy groceries, call the plumber and renew my passport. Then tell me what you did."

// Run starts the scripted model, the example tool servers and the proxy on
// loopback, sends the conversation and prints the stream.
func Run(ctx context.Context, opts Options) error {
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	model := newModel(opts.Pace)
	defer model.Close()

	servers, file, stopTools, err := demoTools(opts.ToolsFile)
	if err != nil {
		return err
	}
	defer stopTools()
	// The model lists itself, so /v1/models shows it to any client.
	model.SetModels(modelName)
	cfg, adminKey := demoConfig(model.URL, file, opts.Listen)
	// Wired as serve wires it: records, so that delete_task and
	// delete_card (approval: always) wait for the user's decision (without
	// them, a tool that needs approval is refused), and every other
	// storage domain the console's views read.
	st, err := wiring.Open(ctx, cfg.Storage, opts.Log)
	if err != nil {
		return err
	}
	defer st.Close()
	host, err := toolhost.New(cfg.Tools, st.Host(toolhost.Options{
		ToolTimeout: cfg.Loop.ToolTimeout, Logger: opts.Log, ApprovalTimeout: cfg.Loop.ApprovalTimeout,
		WebhookAllow: cfg.Auth.WebhookAllow,
	}))
	if err != nil {
		return err
	}
	defer host.Close()
	if err := host.LoadRuntimeTools(ctx); err != nil {
		return err
	}
	defer host.Follow(st.Store)()
	// The demo configures no MCP servers: the manager reports none, as
	// serve's does then.
	mcps := mcp.New(host, mcp.Options{Log: opts.Log})
	defer mcps.Close()
	mcps.Apply(cfg.MCPServers, cfg.Loop.ToolTimeout)
	p, err := proxy.New(&cfg, st.Proxy(proxy.Options{Logger: opts.Log}, host, mcps))
	if err != nil {
		return err
	}
	defer p.Close()
	proxyURL, stopProxy, err := serve(p, cfg.Listen)
	if err != nil {
		return err
	}
	defer stopProxy()

	out := opts.Out
	printIntro(out, servers != nil, len(file.Tools), opts.ToolsFile, proxyURL)
	prompts := opts.Prompts
	if len(prompts) == 0 {
		prompts = []string{Prompt}
	}
	for i, prompt := range prompts {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := converse(ctx, out, proxyURL, prompt, opts.Raw); err != nil {
			if ctx.Err() != nil {
				return nil // Ctrl-C, say while an approval waits
			}
			return err
		}
	}
	if servers != nil {
		printBoards(out, servers)
	}
	if opts.Listen == "" {
		return nil
	}
	printTryIt(out, proxyURL, adminKey)
	<-ctx.Done()
	return nil
}

// demoTools are the tools the scripted model calls and where runtime
// webhooks may point: those of toolsFile when set, or else the example
// tool servers', started here and returned so their boards can be printed
// (servers is nil otherwise). stop stops what was started.
func demoTools(toolsFile string) (servers *tools.Servers, file config.Config, stop func(), err error) {
	if toolsFile != "" {
		file, err := config.Load(toolsFile)
		if err != nil {
			return nil, config.Config{}, nil, err
		}
		if len(file.OpenAPITools) > 0 {
			// The scripted model knows the tools entries' shapes only.
			return nil, config.Config{}, nil, fmt.Errorf("%s: the demo calls the tools entries of a file, not its openapi_tools: run it with toolstream serve (docs/openapi-tools.md)", toolsFile)
		}
		return nil, *file, func() {}, nil
	}
	servers = &tools.Servers{}
	file.Tools, stop, err = startTools(servers)
	if err != nil {
		return nil, config.Config{}, nil, err
	}
	return servers, file, stop, nil
}

// demoLoopback is where the demo lets an admin point a runtime webhook
// (POST /admin/tools): the proxy serves only this machine, and a tool
// server the user starts to try it runs here too.
var demoLoopback = []string{"127.0.0.1", "localhost", "::1"}

// demoConfig is the proxy's configuration: the scripted model at modelURL
// as its one upstream (text mode, hermes), file's tools as its tools and
// its auth.webhook_allow beside loopback, storage in memory, serving on
// listen or else on a free loopback port.
func demoConfig(modelURL string, file config.Config, listen string) (cfg config.Config, adminKey string) {
	cfg = config.Default()
	up := config.DefaultUpstreamEntry()
	up.Name, up.BaseURL, up.Models = "scripted", modelURL, config.Models("*")
	up.ToolMode, up.TextFormat = config.ToolModeText, config.TextFormatHermes
	cfg.Upstreams = []config.Upstream{up}
	cfg.Tools = file.Tools
	cfg.Auth.WebhookAllow = append(slices.Clone(demoLoopback), file.Auth.WebhookAllow...)
	cfg.Storage.InMemory = true
	if listen == "" {
		cfg.Listen = "127.0.0.1:0"
		return cfg, ""
	}
	// An admin key for the console's Tools and Audit views while the
	// demo keeps serving: made up per run and printed, as the proxy
	// serves only loopback.
	cfg.Listen = listen
	adminKey = store.NewID("sk-demo-admin-")
	cfg.Auth.AdminKeys = []config.Secret{config.Secret(adminKey)}
	return cfg, adminKey
}

// printIntro says what runs (the example tool servers when started, or
// the n tools of toolsFile) and where the conversation is sent.
func printIntro(out io.Writer, started bool, n int, toolsFile, proxyURL string) {
	if started {
		fmt.Fprintf(out, "toolstream demo: a scripted model (text mode, hermes), the example tool servers (tasks, kanban, avatar) as webhook tools, and the proxy, all on loopback.\n")
	} else {
		fmt.Fprintf(out, "toolstream demo: a scripted model (text mode, hermes) and the proxy on loopback, calling the %d tools of %s.\n", n, toolsFile)
	}
	fmt.Fprintf(out, "POST %s/chat/completions  stream: true\n\n", proxyURL)
}

// printTryIt says how to try the proxy that keeps serving: the console
// with adminKey, curl lines with tryPrompts, and how to approve a delete.
func printTryIt(out io.Writer, proxyURL, adminKey string) {
	fmt.Fprintf(out, "\nThe proxy keeps serving on %s (Ctrl-C to stop).\n", proxyURL)
	fmt.Fprintf(out, "Open %s/ in a browser (its Tools and Audit views take the admin key %s), or try:\n", strings.TrimSuffix(proxyURL, "/v1"), adminKey)
	for _, prompt := range tryPrompts {
		fmt.Fprintf(out, "  curl -N %s/chat/completions -H 'Content-Type: application/json' \\\n    -d '{\"model\":\"demo-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}'\n", proxyURL, prompt)
	}
	fmt.Fprintf(out, "A delete waits for your approval: the stream names the action, and\n  curl -X POST %s/actions/ACTION_ID/approve\nlets it run (/deny refuses it).\n", proxyURL)
}

// tryPrompts are what the demo suggests trying once it keeps serving.
var tryPrompts = []string{
	"Put a dentist appointment on my task board for Friday",
	"What is on my list?",
	"Delete task 1",
	"Add a card “Fix the login page” to the kanban board",
	"Wave at me",
}

// printBoards prints what the example servers hold after the
// conversation.
func printBoards(out io.Writer, servers *tools.Servers) {
	if list := servers.Tasks.Tasks(); len(list) > 0 {
		fmt.Fprintf(out, "\nThe task list now holds:\n")
		for _, t := range list {
			fmt.Fprintf(out, "  %s\n", taskLine(t))
		}
	}
	if cards := servers.Kanban.Cards(); len(cards) > 0 {
		fmt.Fprintf(out, "\nThe kanban board now holds:\n")
		for _, c := range cards {
			fmt.Fprintf(out, "  #%d %s (%s)\n", c.ID, c.Title, c.Column)
		}
	}
}

// startTools serves the example tool servers on free loopback ports and
// returns their tools as the example config registers them, pointed at
// those ports.
func startTools(servers *tools.Servers) ([]config.Tool, func(), error) {
	cfg, err := config.Parse("examples/tools/toolstream.yaml", tools.Config, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, nil, err
	}
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	at := map[string]string{}
	for _, s := range servers.Handlers(tools.DefaultSecret, nil) {
		u, st, err := serve(s.Handler, "127.0.0.1:0")
		if err != nil {
			stop()
			return nil, nil, err
		}
		stops = append(stops, st)
		at[s.Addr] = strings.TrimPrefix(u, "http://")
	}
	for i := range cfg.Tools {
		w := cfg.Tools[i].Webhook
		if u, err := url.Parse(w.URL); err == nil && at[u.Host] != "" {
			u.Host = at[u.Host]
			w.URL = u.String()
		}
	}
	return cfg.Tools, stop, nil
}

// serve runs h on addr and returns its base URL and a stop function.
func serve(h http.Handler, addr string) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if _, ok := h.(*proxy.Server); ok {
		ln = proxy.Listener(srv, ln)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("demo server", "error", err)
		}
	}()
	url := "http://" + ln.Addr().String()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsUnspecified() {
		// -listen :8080 listens on every address; the URLs printed are
		// for a browser and curl on this machine.
		url = "http://" + net.JoinHostPort("localhost", strconv.Itoa(a.Port))
	}
	if _, ok := h.(*proxy.Server); ok {
		url += "/v1"
	}
	return url, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}, nil
}

// converse sends prompt as a conversation of its own and prints the
// stream.
func converse(ctx context.Context, out io.Writer, base, prompt string, raw bool) error {
	msgs, _ := json.Marshal([]map[string]string{
		{"role": "system", "content": "You are a helpful assistant that manages the user's task board."},
		{"role": "user", "content": prompt},
	})
	body := fmt.Sprintf(`{"model":%q,"stream":true,"stream_options":{"include_usage":true},"messages":%s}`, modelName, msgs)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("proxy answered %d: %s", resp.StatusCode, b)
	}
	fmt.Fprintf(out, "user ▸ %s\n\n", prompt)
	pr := newPrinter(out, raw, base)
	if err := pr.read(resp.Body); err != nil {
		return err
	}
	return pr.summary()
}
