package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// An MCP server a request names itself (docs/request-mcp-servers.md): a
// Responses mcp tool's server_url, a Messages mcp_servers entry's url. It
// is reached over Streamable HTTP through a [toolhost.RemoteGuard] (the
// host allowed, no internal address unless named, no redirect), with the
// request's credentials on every request to it and nowhere else. A
// connection serves the turns of any request naming the same URL with
// the same credentials for a while ([Pool]); nothing of it is registered
// in the tool host.

// remoteConnectTimeout bounds connecting to a request-named server and
// listing its tools: the request waits for it before its first round.
const remoteConnectTimeout = 20 * time.Second

// RemoteTool is one tool a request-named server lists.
type RemoteTool struct {
	// Name is the server's own name for it.
	Name        string
	Description string
	// Parameters is its input schema, as JSON; nil when it has none.
	Parameters json.RawMessage
}

// Remote is a live connection to a request-named MCP server.
type Remote struct {
	cs      *mcp.ClientSession
	tr      *http.Transport
	tools   []RemoteTool
	secrets []string
	ended   chan struct{}
	// broken is set when a call found the connection gone: the pool
	// drops it, and the next request connects anew.
	broken atomic.Bool
}

// dialRemote connects to url, sending headers with every request, and
// lists the server's tools.
func dialRemote(ctx context.Context, url string, headers map[string]string, guard *toolhost.RemoteGuard) (*Remote, error) {
	tr := guard.Transport()
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	client := &http.Client{Transport: &headerTransport{base: tr, headers: h}, CheckRedirect: toolhost.NoRedirects}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolstream", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{}, // toolstream only calls tools
	})
	ctx, cancel := context.WithTimeout(ctx, remoteConnectTimeout)
	defer cancel()
	// No standalone SSE stream: a turn lists the tools once, and a
	// connection held for minutes should not hold a second request open.
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, &RemoteError{Doing: "connecting", Err: err}
	}
	r := &Remote{cs: cs, tr: tr, secrets: mask.Credentials(headers), ended: make(chan struct{})}
	go func() {
		_ = cs.Wait()
		close(r.ended)
	}()
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			r.close()
			return nil, &RemoteError{Doing: "listing its tools", Err: err}
		}
		params, merr := json.Marshal(t.InputSchema)
		if merr != nil || t.InputSchema == nil {
			params = nil
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		r.tools = append(r.tools, RemoteTool{Name: t.Name, Description: desc, Parameters: params})
	}
	return r, nil
}

// Tools are the tools the server listed when the connection was made.
// The slice is shared: do not modify it.
func (r *Remote) Tools() []RemoteTool { return r.tools }

// Executor runs calls of the server's tool name (its own name), each
// bounded by timeout. Its results are masked against the credentials
// the connection sends ([toolhost.SecretHolder]).
func (r *Remote) Executor(label, name string, timeout time.Duration) toolhost.Executor {
	return &remoteExecutor{r: r, label: label, name: name, timeout: timeout}
}

// alive says the connection may still serve calls.
func (r *Remote) alive() bool {
	if r.broken.Load() {
		return false
	}
	select {
	case <-r.ended:
		return false
	default:
		return true
	}
}

// close ends the session and waits for its reader to stop.
func (r *Remote) close() {
	_ = r.cs.Close()
	<-r.ended
	r.tr.CloseIdleConnections()
}

// RemoteError is a request-named server that could not be used: Error
// says what failed in words a client may read (no address, port or Go
// error chain); Err keeps the detail for the log.
type RemoteError struct {
	Doing string
	Err   error
}

func (e *RemoteError) Error() string { return e.Doing + ": " + remoteReason(e.Err) }
func (e *RemoteError) Unwrap() error { return e.Err }

// remoteReason names why a request to the server failed.
func remoteReason(err error) string {
	if msg := toolhost.Refused(err); msg != "" {
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + remoteConnectTimeout.String()
	}
	if r := toolhost.NetReason(err, ""); r != "" {
		return r
	}
	msg := err.Error()
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed} {
		if strings.Contains(msg, http.StatusText(status)) {
			return fmt.Sprintf("the server answered %d %s", status, http.StatusText(status))
		}
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return "the server answered: " + rpcErr.Message
	}
	return "the server's answer was not one of an MCP server (Streamable HTTP)"
}

// remoteExecutor runs calls of one tool of a request-named server.
type remoteExecutor struct {
	r       *Remote
	label   string // the request's name for the server
	name    string // the server's name for the tool
	timeout time.Duration
}

var (
	_ toolhost.Executor     = (*remoteExecutor)(nil)
	_ toolhost.SecretHolder = (*remoteExecutor)(nil)
)

// Execute calls the tool with the call's context: a client that leaves
// cancels it, and the SDK tells the server (notifications/cancelled).
func (e *remoteExecutor) Execute(ctx context.Context, _ toolhost.Call, args json.RawMessage) toolhost.Outcome {
	ctx, cancel := context.WithTimeoutCause(ctx, e.timeout, errToolTimeout)
	defer cancel()
	var arguments any = args
	if len(args) == 0 {
		arguments = map[string]any{}
	}
	sent := ctx.Err() == nil
	res, err := e.r.cs.CallTool(ctx, &mcp.CallToolParams{Name: e.name, Arguments: arguments})
	var out toolhost.Outcome
	if err != nil {
		out = e.failure(ctx, err)
	} else {
		out = resultOutcome(res)
	}
	out.Attempts, out.Sent = 1, sent
	return out
}

func (e *remoteExecutor) failure(ctx context.Context, err error) toolhost.Outcome {
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errToolTimeout) {
			return toolhost.Failure(toolhost.CodeTimeout, fmt.Sprintf("MCP server %s did not answer within %s", e.label, e.timeout))
		}
		return toolhost.Failure(toolhost.CodeCancelled, "the call was cancelled")
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code != codeRejected {
		return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s: %s", e.label, rpcErr.Message))
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrSessionMissing) {
		e.r.broken.Store(true)
		return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s disconnected", e.label))
	}
	e.r.broken.Store(true) // the next request connects anew
	return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s: %s", e.label, remoteReason(err)))
}

// Secrets are the credentials the connection sends.
func (e *remoteExecutor) Secrets() []string { return e.r.secrets }
