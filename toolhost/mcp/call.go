package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolstream/toolstream/toolhost"
	"github.com/toolstream/toolstream/toolhost/mask"
)

// errToolTimeout is the cause of a call context that ran out of the
// tool's time, telling it apart from the caller leaving.
var errToolTimeout = errors.New("mcp: tool timeout")

// codeRejected is the SDK's JSON-RPC code for a request its transport
// could not deliver (jsonrpc2.ErrRejected: an HTTP error or refused
// connection), which is a connection problem, not the server's answer.
const codeRejected = -32005

// executor runs calls of one MCP tool on its server's live session.
type executor struct {
	s       *server
	name    string        // the server's own name for the tool
	timeout time.Duration // server's or override's; zero: loop.tool_timeout
}

var _ toolhost.Executor = (*executor)(nil)

// Execute calls the tool with the call's context, so a client that leaves
// cancels it and the SDK tells the server (notifications/cancelled).
func (e *executor) Execute(ctx context.Context, call toolhost.Call, args json.RawMessage) toolhost.Outcome {
	sess := e.s.sess.Load()
	if sess == nil {
		return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s is not connected", e.s.cfg.Name))
	}
	timeout := e.callTimeout()
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errToolTimeout)
	defer cancel()
	var arguments any = args
	if len(args) == 0 {
		arguments = map[string]any{} // a nil RawMessage would be sent as null
	}
	// The SDK does not say whether its request left; once it is asked
	// with a live context, the server may have the call.
	sent := ctx.Err() == nil
	params := &mcp.CallToolParams{Name: e.name, Arguments: arguments}
	defer e.s.track(call, params)()
	out := func() toolhost.Outcome {
		res, err := sess.cs.CallTool(ctx, params)
		if err != nil {
			return e.failure(ctx, sess, err, timeout)
		}
		return resultOutcome(res)
	}()
	out.Attempts, out.Sent = 1, sent
	return out
}

// failure names why a call got no result: our timeout, the caller
// leaving, the server's protocol error, or a lost connection.
func (e *executor) failure(ctx context.Context, sess *session, err error, timeout time.Duration) toolhost.Outcome {
	name := e.s.cfg.Name
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errToolTimeout) {
			return toolhost.Failure(toolhost.CodeTimeout, fmt.Sprintf("MCP server %s did not answer within %s", name, timeout))
		}
		return toolhost.Failure(toolhost.CodeCancelled, "the call was cancelled")
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code != codeRejected {
		// The server answered, with an error (unknown tool, bad
		// arguments): the model can read it and correct itself.
		return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s: %s", name, rpcErr.Message))
	}
	// The connection failed under the call. Let the watcher check the
	// server now rather than at the next ping.
	select {
	case sess.suspect <- struct{}{}:
	default:
	}
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || e.s.sess.Load() != sess {
		return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s disconnected", name))
	}
	return toolhost.Failure(toolhost.CodeExecutionFailed, fmt.Sprintf("MCP server %s: %s", name, e.s.clean(err)))
}

var _ toolhost.SecretHolder = (*executor)(nil)

// Secrets returns the server's configured credentials, in its headers
// and environment: a server may repeat them in what it answers.
func (e *executor) Secrets() []string {
	return append(mask.Credentials(e.s.cfg.Headers), mask.Credentials(e.s.cfg.Env)...)
}
