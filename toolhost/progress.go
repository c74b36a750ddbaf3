package toolhost

// ProgressUpdate is how far a running call got, as its tool reports it: an
// MCP server's notifications/progress, or a webhook's "event: progress"
// (docs/webhooks.md). Progress should grow from one update to the next;
// Total is zero when unknown.
type ProgressUpdate struct {
	Progress float64
	Total    float64
	Message  string
}

// ProgressReporter is a [Progress] that also hears a running call's
// progress; the loop shows it as tool.progress events (docs/stream.md). It
// is a separate interface so that a Progress that does not care (the /mcp
// server role's, a test's) need not implement it.
//
// ToolProgress may be called from any goroutine — an MCP client's
// notification handler, not only the call's own — and until the executor
// returns; it must not block, since a slow client must not hold up the
// tool or the MCP session the update came in on.
type ProgressReporter interface {
	ToolProgress(call Call, u ProgressUpdate)
}

// ReportProgress tells the listener of call, if it listens, that the call
// got as far as u. Executors call it; it never blocks for long.
func ReportProgress(call Call, u ProgressUpdate) {
	if r, ok := call.Progress.(ProgressReporter); ok {
		r.ToolProgress(call, u)
	}
}
