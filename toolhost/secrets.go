package toolhost

import "github.com/toolstream/toolstream/toolhost/mask"

// A tool can repeat what toolstream sent it: a webhook that echoes its
// request headers puts the configured token in its answer, an MCP server
// may print its environment. The result is born here, so it is masked
// here, before the model, the client's events or the audit log see it.

// SecretHolder is an [Executor] that sends credentials with its calls (a
// webhook's header values and signing secret, an MCP server's headers and
// environment). Every tool's result is masked against the secrets of all
// registered tools.
type SecretHolder interface {
	Secrets() []string
}

// secretsOf lists the secrets the registry's executors send.
func (r *registry) secretsOf() []string {
	var out []string
	for _, n := range r.names {
		if sh, ok := r.tools[n].exec.(SecretHolder); ok {
			out = append(out, sh.Secrets()...)
		}
	}
	return out
}

// maskOutcome masks out's result and error message with m.
func maskOutcome(m *mask.Masker, out Outcome) Outcome {
	if m == nil {
		return out
	}
	out.Content = m.String(out.Content)
	if out.Err != nil {
		e := *out.Err
		e.Message, e.Detail = m.String(e.Message), m.String(e.Detail)
		out.Err = &e
	}
	return out
}

// Secrets returns the webhook's header values and signing secret, in the
// forms a body quotes them.
func (w *webhook) Secrets() []string { return w.secrets }

// maskedProgress masks the messages of a running call's progress updates,
// which reach the client as events before the result does.
type maskedProgress struct {
	Progress
	r ProgressReporter
	m *mask.Masker
}

func (p maskedProgress) ToolProgress(call Call, u ProgressUpdate) {
	u.Message = p.m.String(u.Message)
	p.r.ToolProgress(call, u)
}

// maskProgress returns call with its progress updates masked by m.
func maskProgress(m *mask.Masker, call Call) Call {
	if r, ok := call.Progress.(ProgressReporter); ok && m != nil {
		call.Progress = maskedProgress{Progress: call.Progress, r: r, m: m}
	}
	return call
}
