// Package detect finds text-mode tool calls in a model's streamed content
// (docs/tool-calls.md): it is fed the content as it arrives, gives back the
// text that is safe to show, and reports each call as soon as its block closes.
//
// One [Detector] serves one round of one turn. It is an explicit state
// machine: scan.go for prose, <think> and code fences; markers.go for the
// opening markers looked for in prose; strip.go for control tokens cut
// from the text; block.go for a block being read; endopen.go for a block
// the stream ends in; drop.go for one over the size limit; balance.go for
// blocks that end at a balancing bracket; fence.go for fence lines;
// trail.go for a wrapper's close after a block; output.go and blank.go for
// the visible text; one body parser per format and dialect, and one file
// per variant that other servers accept (hermeswrap.go, toolxml.go,
// functag.go, functools.go, trbracket.go, gemma4bare.go). The marker
// formats and the dialects with a distinctive marker are always looked
// for; json when it is the taught format, and under Auto for known tools
// (autojson.go); llama3_json, pythonic and Gemma 4's bare calls (which
// have no marker) only when taught or under Auto, and only where a line
// starts.
//
// # Harmony
//
// gpt-oss's harmony (harmony.go) is a structure around prose, not a block
// in it, and the same state machine reads it with three more states
// (harmonyscan.go): <|start|> and <|channel|> are markers that open a
// header (stHeader), held until readHeader can tell what it is; an
// analysis message is reasoning (stReason), released through
// [Detector.Reasoning] instead of the visible text, up to its end token
// or the next header; a final or commentary message is prose again
// (stText), where the end tokens are markers that are dropped; a message
// with a recipient is a marker block (stBlock) whose markup is its header,
// its JSON and its end token, and rule 6 decides it like any block. The
// start of a reply (stStart) may go on the header the prompt opened
// (" to=functions.NAME…") or be the stripped form ("analysisWe…").
//
// # What is held back
//
// Prose is released at once (rule 1), except:
//   - a suffix that may still become an opening marker: at most 32 bytes,
//     the longest marker less one (DSML's <｜｜DSML｜｜ function_calls> is
//     33), released as soon as it cannot;
//   - a code fence opening a line ("```lang" and the blank lines after it),
//     at most 160 bytes, until what follows shows whether the fence holds a
//     tool block;
//   - in json mode and under Auto, a piece's end that may still become
//     "functools[" where a line starts (functools.go); where gemma4 is
//     taught and under Auto, one that may still become Gemma 4's bare
//     "call:NAME{" where a line starts (gemma4bare.go);
//   - an incomplete UTF-8 sequence at the end of a piece;
//   - a ']' ending a piece, until the next byte shows whether it starts
//     minimax_m3's "]<]minimax[>[";
//   - in a <think> span, a suffix that may still become a control token
//     cut from it (strip.go);
//   - a harmony header, at most 256 bytes, until it shows what it is, and
//     a suffix that may still become a harmony token (in an analysis
//     message or a code fence where harmony is read) or, at the start of a
//     reply, " to=" or "analysis";
//   - the blank run right after a removed block, until the next non-blank
//     byte shows how many of its line breaks may go (blank.go);
//   - in json mode (and under Auto where a line starts), an object whose
//     first key is a call's (name, tool_calls, function, type, id,
//     arguments or parameters), up to its balancing brace.
//
// A block is held from its opening marker (or fence) until it closes, then
// reported as calls or, when rule 6 leaves it to the prose, released as
// written. A rejected marker block outside a fence is released from its
// opening marker on and the rest is scanned again, and a marker block that
// meets its own opening marker again before its close starts over there
// (the first was stray), so a real call right after a stray or look-alike
// marker is still found. A rejected bracket block (json, llama3_json,
// pythonic, mistral) is data and stays text byte for byte. A block written
// without its wrapper's opening (a bare <function=…>, a DeepSeek or Kimi
// call without its section) is held after its close, with the blank space
// after it (at most 160 bytes), until the wrapper's close follows, which is
// then part of the block, or something else does. Outside the taught format a block is taken
// when it names a known tool; a block of several calls, when one of them
// does (the caller answers TOOL_NOT_FOUND for the others). A malformed block
// outside the taught format is taken only when the tool name it could read
// is known. A marker followed by something that cannot start its body
// ("<tool_call> tags are", "<<<[TOOL_REQUEST]>>> marker", "use
// <function=x> to") is prose as soon as that shows; a body cut by the end
// of the stream before it showed ("… <tool_call> tags.") is prose too,
// except in the taught format when the body starts on the line after the
// marker, outside a fence: that block is a call whatever follows (rule 2),
// a PARSE_ERROR when no parser reads it.
//
// # Decisions
//
//   - Raw text values (xml, Qwen3-Coder, GLM, MiniMax M3's leaves) lose
//     one leading and one trailing newline ("\n" or "\r\n"), nothing
//     else; tool_request values are kept as written (their 「始」「末」
//     delimiters are explicit). No entities are decoded.
//   - A block over Options.MaxBlockBytes is reported with [ErrTooLarge] from
//     the Feed in which it passes the limit, Raw being its first
//     MaxBlockBytes bytes; the rest of it, up to and including its closing
//     marker (and closing fence), is dropped: neither shown nor kept. In a
//     format that was not taught, a block naming no known tool in those
//     bytes is released as text instead, and scanning goes on after them.
//   - A fence (```, optional info string, at most three spaces of indent)
//     whose body is one block and blank space is that block: the fence is
//     part of Raw and hidden, and the calls come from the Feed that closes
//     the fence, not the block, since only then is it known to hold nothing
//     else. Any other fenced code is shown and never executed. Tilde
//     fences (~~~) count like backtick ones.
//   - <think>…</think> in content is shown and never executed; an unclosed
//     <think> runs to the end of the reply. Control tokens are cut from
//     it as from prose (strip.go), harmony's headers' openings too. (A server that strips the
//     opening tag leaves its thinking as prose, where calls are found.)
//   - Gemma 4's thought channel (<|channel>…<channel|>) and Seed's
//     <seed:think>…</seed:think> are read as <think> is. (The loop takes
//     them out as reasoning before its detector sees the content.)
//   - A Gemma 4 call open at End is complete when it ends with <turn|>, or
//     with the '}' of arguments that parse (the server stripped the stop
//     token): syntax.end (endopen.go).
//   - At End, a block still open is a call with [ErrUnclosed] (rule 4),
//     or text under rule 6, except that a json object cut right after a
//     complete value is parsed as if its closing braces were there (the
//     documented "missing closing brace"), a DeepSeek or Kimi K2 section
//     that ends right after a call's end is complete (R1 leaves its
//     <｜tool▁calls▁end｜> out), a DSML wrapper left open gives its
//     complete invokes as calls and an invoke cut off as [ErrUnclosed], a
//     Kimi K3 tools section or MiniMax M3 tool_call block cut inside a
//     later call keeps the calls that closed in it, the cut one being the
//     [ErrUnclosed] call (endopen.go), and a
//     fenced json body that is complete JSON is taken though its fence was
//     left open.
package detect
