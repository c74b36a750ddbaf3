package loop

import (
	"time"

	"github.com/toolstream/toolstream/toolhost"
)

// StatusClient is the [CallSummary.Status] of a call handed to the client
// to run.
const StatusClient = "client"

// CallSummary is one tool call of a turn, for the turn's log line and
// metrics.
type CallSummary struct {
	// Name is the tool the model named. It may name no tool of the proxy
	// (TOOL_NOT_FOUND) or be empty (a block too malformed to name one).
	Name string
	// Status is toolhost's ok, error, denied or cancelled for a server
	// call, and [StatusClient] for a call handed to the client.
	Status string
	// Duration is the executor's time ([toolhost.Result.RunTime]); zero
	// for a call that never reached the executor (a parse error, an
	// unknown tool, invalid arguments, denied, not approved in time,
	// cancelled before it started) and for client calls.
	Duration time.Duration
	// Executed says the executor was called; only such calls have a
	// Duration worth measuring.
	Executed bool
	// Client says the call was handed to the client.
	Client bool
}

// foundCall is a call of the turn as it was found: a server call with its
// execution, or a client call (p nil).
type foundCall struct {
	name string
	p    *pending
}

// summaries reads the outcome of every call found. It runs once the
// rounds are over: each round waits for its call goroutines before it
// returns, so every result is written by then, also when the turn failed.
func (tr *turnRun) summaries() []CallSummary {
	if len(tr.found) == 0 {
		return nil
	}
	out := make([]CallSummary, len(tr.found))
	for i, f := range tr.found {
		if f.p == nil {
			out[i] = CallSummary{Name: f.name, Status: StatusClient, Client: true}
			continue
		}
		status := f.p.result.Status
		if status == "" {
			// The executor returned no result: the turn ended before
			// the call could finish.
			status = toolhost.StatusCancelled
		}
		out[i] = CallSummary{Name: f.name, Status: status, Duration: f.p.result.RunTime, Executed: f.p.result.Executed}
	}
	return out
}
