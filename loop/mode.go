package loop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/clip"
)

// ToolsRejectedError is an upstream in native mode refusing the request's
// tools: its server has no tool parser, or the model cannot call tools.
// The fix is text mode, and the message says so (docs/tool-calls.md).
type ToolsRejectedError struct {
	Upstream string
	// Err is the upstream's own error (an *UpstreamError).
	Err error
}

// Error names the upstream, its refusal and the fix.
func (e *ToolsRejectedError) Error() string {
	return fmt.Sprintf("upstream %s does not accept native tools (%s): set tool_mode: text (or auto) for this upstream", e.Upstream, upstreamMessage(e.Err))
}

// Unwrap returns the upstream's own error.
func (e *ToolsRejectedError) Unwrap() error { return e.Err }

// rejectsTools reports whether err is an upstream refusing native tools:
// a 400 or 422 whose message names tools or function calling, or a 404
// saying no endpoint supports tool use. Seen in the wild: Ollama "… does
// not support tools", vLLM "\"auto\" tool choice requires
// --enable-auto-tool-choice …", llama.cpp "tools param requires --jinja
// flag", OpenRouter's 404 "No endpoints found that support tool use" for a
// model none of whose providers takes tools.
func rejectsTools(err error) bool {
	var ue *UpstreamError
	if !errors.As(err, &ue) {
		return false
	}
	msg := strings.ToLower(upstreamMessage(ue))
	switch ue.Status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return strings.Contains(msg, "tool") || strings.Contains(msg, "function call")
	case http.StatusNotFound:
		// A 404 is usually a wrong model or path: only one that says
		// tools are the problem counts, not a model named tool-something.
		return strings.Contains(msg, "support tool") || strings.Contains(msg, "tool use")
	}
	return false
}

// upstreamMessage is the message of an upstream error: the "message" of an
// OpenAI-shaped body, or the body itself.
func upstreamMessage(err error) string {
	var ue *UpstreamError
	if !errors.As(err, &ue) {
		return err.Error()
	}
	if v, perr := fastjson.ParseBytes(ue.Body); perr == nil {
		for _, path := range [][]string{{"error", "message"}, {"message"}, {"error"}, {"detail"}} {
			if m := v.GetStringBytes(path...); len(m) > 0 {
				return string(m)
			}
		}
	}
	return clip.Excerpt(ue.Body, 300)
}

// chooseMode resolves the turn's tool mode: auto is native unless this
// upstream and model are remembered to reject native tools.
func (tr *turnRun) chooseMode(ctx context.Context) error {
	if tr.plain {
		return nil
	}
	tr.native, tr.auto = false, false // again for a fallback upstream
	switch tr.t.Mode {
	case config.ToolModeNative:
		tr.native = true
	case config.ToolModeAuto:
		tr.native, tr.auto = true, true
		if tr.t.Modes != nil {
			text, err := tr.t.Modes.TextFallback(ctx, tr.t.UpstreamName, tr.t.Request.Model)
			if err != nil {
				tr.r.log().Warn("reading the remembered tool mode", "upstream", tr.t.UpstreamName, "error", err)
			}
			tr.native = !text
		}
	}
	return nil
}

// fallBack switches an auto turn to text mode after the upstream rejected
// native tools: remembered for this upstream and model, and told to the
// client with a mode.fallback event.
func (tr *turnRun) fallBack(ctx context.Context, cause error) error {
	tr.native = false
	tr.r.log().Info("tool mode fallback", "upstream", tr.t.UpstreamName, "model", tr.t.Request.Model, "reason", cause.Error())
	if tr.t.Modes != nil {
		if err := tr.t.Modes.RememberTextFallback(ctx, tr.t.UpstreamName, tr.t.Request.Model); err != nil {
			tr.r.log().Warn("remembering the tool mode", "upstream", tr.t.UpstreamName, "error", err)
		}
	}
	return tr.event(Event{Event: "mode.fallback", Round: 1, From: config.ToolModeNative, To: config.ToolModeText, Reason: upstreamMessage(cause)})
}
