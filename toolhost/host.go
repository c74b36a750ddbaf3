package toolhost

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/mask"
	"github.com/toolstream/toolstream/toolhost/policy"
)

// Defaults for what [Options] and config leave at zero.
const (
	// DefaultToolTimeout bounds a call when neither the tool's
	// webhook.timeout nor [Options.ToolTimeout] is set (loop.tool_timeout).
	DefaultToolTimeout = 30 * time.Second
	// DefaultMaxResultBytes cuts results when a tool's max_result_bytes is
	// zero.
	DefaultMaxResultBytes = 64 << 10
)

// DefaultApprovalTimeout turns an undecided approval into DENIED when
// [Options.ApprovalTimeout] is zero (loop.approval_timeout).
const DefaultApprovalTimeout = 5 * time.Minute

// defaultParameters is the schema of a tool that declares none: an object
// with any properties.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Options configure a [Host]. The zero value is ready to use.
type Options struct {
	// ToolTimeout bounds a call of a tool without its own webhook.timeout
	// (loop.tool_timeout), retries included. Zero means
	// [DefaultToolTimeout].
	ToolTimeout time.Duration
	// Client sends webhook requests of config tools. Nil means a default
	// client with a pooled keep-alive transport and a 10s dial timeout.
	// Redirects are never followed, whatever the client's CheckRedirect
	// says: a 3xx is an API_ERROR. The client's own Timeout, if any, still
	// applies; leave it zero and let the tool timeouts do the bounding.
	Client *http.Client
	// Logger receives one line per call (tool, status, error code and
	// message, duration). Nil discards. Arguments, results, webhook URLs,
	// header values and secrets are never logged.
	Logger *slog.Logger
	// Now stamps webhook-timestamp, records and approvals. Nil means
	// time.Now; tests set it.
	Now func() time.Time
	// Records keeps the audit log, approvals and the retry index. Nil
	// keeps nothing: calls run unrecorded, retried turns run every call
	// again, and a tool that needs approval is refused with DENIED,
	// because nothing could hold the decision.
	Records Records
	// Instance is this process's id, written on every started call and
	// pending approval so that a restart can tell its own leftovers.
	Instance string
	// ApprovalTimeout turns an undecided approval into DENIED. Zero means
	// [DefaultApprovalTimeout].
	ApprovalTimeout time.Duration
	// ToolStore keeps runtime tools (the admin API) across restarts. Nil
	// keeps them in memory only: they are gone after a restart.
	ToolStore ToolStore
	// AuditRetention is storage.audit_retention: a call's final record
	// that storage failed to take is retried until then, counted from
	// the call's start. Zero means the config default.
	AuditRetention time.Duration
	// WebhookAllow is auth.webhook_allow: the host globs runtime webhooks
	// may call (guard.go has the whole rule). Empty refuses every runtime
	// webhook. Config tools are not subject to it.
	WebhookAllow []string
	// Policies are the policies rules calls are held to
	// (docs/policies.md); [Host.SetPolicies] replaces them on a reload.
	// Empty: none.
	Policies []config.Policy
}

// Host is the registry of server tools and runs their calls.
//
// It is safe for concurrent use. The registry is an immutable snapshot
// swapped atomically: Execute, Lookup and Tools read it without locking,
// and [Host.Register] / [Host.Remove] / [Host.SetSource] (the admin API,
// config reloads, MCP servers coming and going) build a new snapshot under
// a writers' mutex. A call already running keeps the tool it started with.
type Host struct {
	client      *http.Client
	ownClient   bool
	log         *slog.Logger
	now         func() time.Time
	toolTimeout time.Duration
	records     Records
	instance    string
	approvalTTL time.Duration
	waiters     waiters
	// proposed holds, by action id, the model's coerced arguments of a
	// call waiting here: an edit decided on this replica is checked with
	// its redacted fields put back, as it will run.
	proposed sync.Map
	// turnEntries holds, by action id, the tool of a turn-tool call
	// waiting here (turntools.go): an edit is checked by its schema.
	turnEntries sync.Map
	// finals retries final records storage failed to take (finals.go).
	finals finals
	// pending counts calls waiting for an approval (a metric).
	pending atomic.Int64
	// resuming are the actions whose parked call a request resumes
	// (Call.Action): two requests that both found it parked run it
	// once.
	resuming sync.Map

	mu  sync.Mutex // serialises writers of reg
	reg atomic.Pointer[registry]
	// watchers hear of every change of reg ([Host.Watch]).
	watchers watchers

	rt runtimeTools

	// policies are the rules in force (policies.go); nil: none.
	policies atomic.Pointer[policy.Set]
}

// New builds a Host from the configured tools, compiling every schema
// once. It reports every bad tool, not just the first.
func New(tools []config.Tool, opts Options) (*Host, error) {
	h := &Host{
		client:      opts.Client,
		log:         opts.Logger,
		now:         opts.Now,
		toolTimeout: opts.ToolTimeout,
		records:     opts.Records,
		instance:    opts.Instance,
		approvalTTL: opts.ApprovalTimeout,
	}
	if h.client == nil {
		h.client, h.ownClient = defaultClient(), true
	} else {
		c := *h.client // the caller's client is theirs: change a copy
		h.client = &c
	}
	h.client.CheckRedirect = noRedirects
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.toolTimeout <= 0 {
		h.toolTimeout = DefaultToolTimeout
	}
	if h.approvalTTL <= 0 {
		h.approvalTTL = DefaultApprovalTimeout
	}
	h.finals.init(h.records, h.log, h.now, h.instance, cmp.Or(opts.AuditRetention, config.Default().Storage.AuditRetention))
	h.rt.init(opts.ToolStore, opts.WebhookAllow, h.log)
	h.reg.Store(&registry{tools: map[string]*entry{}})
	if err := h.SetConfigTools(tools); err != nil {
		return nil, err
	}
	if err := h.SetPolicies(opts.Policies); err != nil {
		return nil, err
	}
	return h, nil
}

// SetConfigTools replaces the config tools, at start-up and on a reload:
// every tool is checked first, and on any problem nothing changes.
func (h *Host) SetConfigTools(tools []config.Tool) error {
	regs := make([]Registration, 0, len(tools))
	var errs []error
	seen := map[string]bool{}
	for i, t := range tools {
		reg, err := h.configRegistration(t)
		if err == nil && seen[t.Name] {
			err = errors.New("duplicate tool name")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("tools[%d] %q: %w", i, t.Name, err))
			continue
		}
		seen[t.Name] = true
		regs = append(regs, reg)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return h.SetSource(SourceConfig, regs)
}

// configRegistration checks a config tool and builds its webhook.
func (h *Host) configRegistration(t config.Tool) (Registration, error) {
	tool := ToolFromConfig(t, SourceConfig)
	if t.Name == "" {
		return Registration{}, errors.New("name is empty")
	}
	exec, err := h.Webhook(t, nil)
	if err != nil {
		return Registration{}, err
	}
	if _, err := newEntry(tool, exec); err != nil {
		return Registration{}, err
	}
	return Registration{Tool: tool, Exec: exec}, nil
}

// ToolFromConfig is the Tool a config entry describes (its webhook aside).
func ToolFromConfig(t config.Tool, source string) Tool {
	return Tool{
		Name:        t.Name,
		Description: t.Description,
		Parameters:  t.Parameters,
		Approval:    t.Approval,
		Idempotent:  t.Idempotent,
		Redact:      t.Redact,
		Source:      source,
	}
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// defaultClient is a pooled keep-alive client for webhooks. It has no
// overall Timeout: each call's context carries the tool's timeout.
func defaultClient() *http.Client {
	return &http.Client{Transport: webhookTransport()}
}

// webhookTransport is the pooled keep-alive transport of webhook clients.
func webhookTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16, // the default 2 is too few for parallel_tools
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Webhook builds the executor of a webhook tool. client sends its
// requests; nil means the Host's own (config tools). Runtime tools pass a
// client whose dialer refuses private addresses. Redirects are never
// followed whichever client it is.
//
// A webhook secret of the form "whsec_<base64>" is base64-decoded after the
// prefix (the Standard Webhooks form, so secrets made for its libraries
// work unchanged), any other secret is used as its raw bytes; the tool's
// headers are sent as configured except Content-Type, User-Agent,
// X-Request-Id and webhook-*, which toolstream sets itself.
func (h *Host) Webhook(t config.Tool, client *http.Client) (Executor, error) {
	if t.Webhook == nil {
		return nil, errors.New("webhook: required")
	}
	u, err := url.Parse(t.Webhook.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("webhook.url: must be an absolute http or https URL")
	}
	if client == nil {
		client = h.client
	} else if client.CheckRedirect == nil {
		c := *client
		c.CheckRedirect = noRedirects
		client = &c
	}
	w := &webhook{
		url:        t.Webhook.URL,
		timeout:    t.Webhook.Timeout,
		idempotent: t.Idempotent,
		maxResult:  t.MaxResultBytes.Int(),
		client:     client,
		now:        h.now,
	}
	if w.timeout <= 0 {
		w.timeout = h.toolTimeout
	}
	if w.maxResult <= 0 {
		w.maxResult = DefaultMaxResultBytes
	}
	if len(t.Webhook.Headers) > 0 {
		w.headers = make(http.Header, len(t.Webhook.Headers))
		for k, v := range t.Webhook.Headers {
			w.headers.Set(k, v.Value())
		}
		w.secrets = mask.Credentials(t.Webhook.Headers)
	}
	if t.Webhook.Secret != "" {
		sec := t.Webhook.Secret.Value()
		w.secrets = append(w.secrets, sec, strings.TrimPrefix(sec, secretPrefix))
		if w.key, err = signingKey(t.Webhook.Secret.Value()); err != nil {
			return nil, fmt.Errorf("webhook.secret: %w", err)
		}
	}
	return w, nil
}

// PendingApprovals reports how many calls of this process wait for an
// approval now.
func (h *Host) PendingApprovals() int { return int(h.pending.Load()) }

// Close stops the background retries of final records that storage
// failed to take, trying each once more and logging those lost, and
// releases idle webhook connections of the default client and of runtime
// tools. The Host stays usable (a final record that fails from now on is
// logged as lost, not retried); a caller-supplied client is left alone.
// Close it before its Records.
func (h *Host) Close() error {
	h.finals.close()
	if h.ownClient {
		h.client.CloseIdleConnections()
	}
	h.rt.client.CloseIdleConnections()
	return nil
}

// NotFoundMessage is the TOOL_NOT_FOUND message: it lists the available tools
// so the model can correct the name (docs/webhooks.md). The loop uses it too,
// for names outside the tools a turn may run.
func NotFoundMessage(name string, available []string) string {
	msg := "unknown tool " + strconv.Quote(name)
	if len(available) == 0 {
		return msg + "; no server tools are available"
	}
	return msg + "; available tools: " + strings.Join(available, ", ")
}
