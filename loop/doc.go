// Package loop runs one turn: the rounds against an upstream, the detectors
// watching the model's text, the feedback of tool results, and the stream
// contract the client relies on (docs/stream.md: one id, one role, one finish,
// one [DONE]). It knows nothing of HTTP servers: proxy hands it an [Upstream]
// to open rounds on, an [Executor] to run server tools with, and an [Out]
// to write to.
//
// # File map
//
// In the order a reader needs them. The API a caller sees:
//
//   - turn.go: [Runner], [Turn], [Report], [Runner.Run]; what a turn is
//     given and what it reports.
//   - request.go, overrides.go: [ParseRequest] reads the client's chat
//     body once; [Overrides] are its per-request settings.
//   - upstream.go, fallback.go: [Upstream] and [Stream], the upstream's
//     errors, and the [Fallback] upstream a round moves to.
//   - out.go: [Out], loop's only output: the turn as typed events, or as
//     chat chunks through Raw; [Meta], what only chat's collected answer
//     keeps of a chunk; [Ignore], for an Out that wants only some.
//   - clientsink.go: the turn's own wrapper of its Out, which knows when
//     the client was last written to.
//   - id.go, report.go: [NewID]; the calls a [Report] lists.
//
// One turn, top to bottom:
//
//   - turnrun.go: turnRun, the state of one turn, and its rounds loop
//     (begin, a round's body, recovery from a failed round, the round kept
//     as history, the finish).
//   - mode.go: native or text mode, chosen per upstream and fallen back
//     from when the upstream rejects tools.
//   - round.go: one round's story: its calls, detector and outcome, the
//     upstream opened and read, the end of its text, its calls awaited;
//     echotext.go: the text the client read, kept as a view of the
//     model's text while the two are the same.
//   - chunkstep.go: step, the one path every upstream chunk takes: usage,
//     delta, finish, send.
//   - sameshape.go: a plain turn's content chunk that repeats the last
//     one's bytes around another content string, passed unparsed.
//   - callplace.go: a call's activity sent where its block stood, before
//     the words the model wrote after it in the same piece.
//   - reasoningspans.go: the reasoning spans models write in content
//     (Gemma 4's thought channel, <seed:think>) sent as reasoning before
//     the detector reads the content.
//   - roundbody.go: the request body of each round of a turn with tools
//     (the client's messages, the taught prompt or the server tools, the
//     earlier rounds in the tool mode's shape), each round's bytes the
//     last one's followed by new ones; taught.go: tools text mode
//     teaches after a round's results rather than in a changed prompt;
//     toolorder.go: native tools in the order earlier rounds sent them.
//   - startcalls.go: a found call started, refused, or handed to the
//     client; calls.go: the calls' goroutines and their results.
//   - nativecalls.go: the native tool calls of a round, server calls
//     taken out and client calls re-indexed.
//   - clienttools.go, findtools.go: the client's own tools in text mode;
//     find_tools when the server tools are many; findtools_history.go:
//     the tools earlier turns found, kept where they were taught.
//   - saveturn.go: the turn's side of history stitching: stitched before
//     its first round, stored after its last.
//   - resume.go: calls an earlier response left waiting for the client's
//     approval (Request.Resume), run before the first round.
//
// The stream the client reads:
//
//   - clientstream.go: the client's stream: one id, one role, chunks sent
//     as read or re-encoded, held chunks, the finish.
//   - ownevents.go: the turn's own output (its text, reasoning, finish,
//     client calls found in text, events) as typed events to every Out;
//     chat's Out builds chunks of them.
//   - usage_tally.go, usage_count.go, usage_ask.go: the usage chunk held to
//     the end and summed over rounds; the turn's token counts; asking the
//     upstream for usage, and working around one that refuses.
//   - display.go, progress.go: tool events and cards ([Event]), approval
//     and progress events.
//   - emit.go: each chunk as typed events, from what the turn made of it.
//   - mailbox.go: one writer: what other goroutines have for the client
//     (approval events, progress) and the keepalives' due times, written by
//     the turn's goroutine while it waits.
//   - trace.go: OpenTelemetry spans of the turn, its rounds and its calls.
//
// Sub-packages hold what has its own vocabulary: chunk (JSON strings,
// the think split, usage sums), history (stitching, scopes, a round's
// messages, text frames), detect (the text-call detectors), textmode
// (what text mode teaches and feeds back), toolsearch (find_tools'
// ranking), jsonread (spans of raw JSON); looptest holds test doubles
// (an Out that rebuilds what a client reads, an executor).
package loop
