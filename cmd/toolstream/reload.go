package main

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/proxy"
	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mcp"
	"github.com/toolstream/toolstream/toolhost/openapi"
)

// reloader applies the config file again on SIGHUP, without dropping open
// streams: upstreams, default_upstream, keys, loop settings, tools and MCP
// servers apply to requests that arrive afterwards (runtime-registered tools are
// kept); a turn already running keeps the configuration it started with.
type reloader struct {
	file, listen string
	// cfg is the running configuration.
	cfg  *config.Config
	log  *slog.Logger
	host *toolhost.Host
	srv  *proxy.Server
	mcp  *mcp.Manager
	// oas holds the openapi_tools sources registered; openAPI is what
	// start-up read for them.
	oas     *openapi.Sources
	openAPI []openapi.Source
}

// reload reads the file and switches to it. A file with problems is
// refused whole, each problem logged as "toolstream check" prints it, and
// the running configuration stays. Keys only a restart can change are
// kept as they run, with a warning naming each.
func (r *reloader) reload() {
	cfg, err := loadConfig(r.file, r.listen)
	if err != nil {
		r.refuse(err)
		return
	}
	// The documents are read again: a service's new operations appear.
	oas, err := loadOpenAPI(context.Background(), cfg, r.log)
	if err != nil {
		r.refuse(err)
		return
	}
	logWarnings(r.log, cfg)
	for _, key := range r.keepRestartOnly(cfg) {
		r.log.Warn("config change needs a restart: keeping the running value", "key", key)
	}
	if err := r.host.SetPolicies(cfg.Policies); err != nil {
		r.refuse(err)
		return
	}
	if err := r.host.SetConfigTools(configTools(cfg)); err != nil {
		r.restorePolicies()
		r.refuse(err)
		return
	}
	if err := r.srv.Reload(cfg); err != nil {
		// Put the tools back so that tools and upstreams stay of one
		// configuration; they were accepted before, so this succeeds.
		if rerr := r.host.SetConfigTools(configTools(r.cfg)); rerr != nil {
			r.log.Error("restoring the running tools", "error", rerr)
		}
		r.restorePolicies()
		r.refuse(err)
		return
	}
	r.host.SetWebhookAllow(cfg.Auth.WebhookAllow)
	// Servers whose entry changed restart, new ones start, removed ones
	// stop; the others stay connected.
	r.mcp.Apply(cfg.MCPServers, cfg.Loop.ToolTimeout)
	if err := r.oas.Apply(oas); err != nil {
		r.log.Error("openapi_tools not registered", "error", err.Error())
	}
	logSkipped(r.log, cfg, oas)
	r.cfg = cfg
	r.log.Info("config reloaded", "file", r.file, "upstreams", len(cfg.Upstreams), "tools", len(cfg.Tools),
		"keys", len(cfg.Auth.Keys), "admin_keys", len(cfg.Auth.AdminKeys), "mcp_servers", len(cfg.MCPServers), "openapi_tools", len(cfg.OpenAPITools), "policies", len(cfg.Policies))
}

// restorePolicies puts the running configuration's policies back after a
// reload was refused; they were accepted before, so this succeeds.
func (r *reloader) restorePolicies() {
	if err := r.host.SetPolicies(r.cfg.Policies); err != nil {
		r.log.Error("restoring the running policies", "error", err)
	}
}

func (r *reloader) refuse(err error) {
	var ce *config.Error
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			r.log.Error("config reload refused", "problem", p.String())
		}
	} else {
		r.log.Error("config reload refused", "error", err.Error())
	}
	r.log.Warn("config not reloaded: the running configuration stays", "file", r.file)
}

// keepRestartOnly sets in next the running values of the keys that cannot
// change while serving — listen, storage.*, log.* and
// loop.approval_timeout (the tool host reads it at start-up) — and
// returns the ones that differed.
func (r *reloader) keepRestartOnly(next *config.Config) []string {
	cur := r.cfg
	var changed []string
	changed = append(changed, diffKeys("listen", cur.Listen, next.Listen)...)
	changed = append(changed, diffKeys("storage", cur.Storage, next.Storage)...)
	changed = append(changed, diffKeys("log", cur.Log, next.Log)...)
	// The tracer provider and its exporter are made once, at start-up.
	changed = append(changed, diffKeys("otel", cur.Otel, next.Otel)...)
	changed = append(changed, diffKeys("loop.approval_timeout", cur.Loop.ApprovalTimeout, next.Loop.ApprovalTimeout)...)
	next.Listen, next.Storage, next.Log, next.Otel = cur.Listen, cur.Storage, cur.Log, cur.Otel
	next.Loop.ApprovalTimeout = cur.Loop.ApprovalTimeout
	return changed
}

// diffKeys lists the YAML keys under path whose values differ between a
// and b, descending into structs so that a warning names the leaf
// ("storage.path"), not the section.
func diffKeys(path string, a, b any) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() != reflect.Struct {
		if reflect.DeepEqual(a, b) {
			return nil
		}
		return []string{path}
	}
	var out []string
	for i := range va.NumField() {
		name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !va.Type().Field(i).IsExported() {
			continue
		}
		out = append(out, diffKeys(path+"."+name, va.Field(i).Interface(), vb.Field(i).Interface())...)
	}
	return out
}
