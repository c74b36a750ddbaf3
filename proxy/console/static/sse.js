// Server-sent events from a fetch() body, read as the HTML standard's
// "interpreting an event stream" reads them for EventSource: lines end in
// LF, CR or CRLF; "data:" lines join with "\n"; a blank line ends an
// event; comment lines (": keepalive") and other fields are skipped.
// EventSource itself cannot POST or send Authorization, so every browser
// client of chat completions parses the stream like this.

// dataEvents yields the data of each event of a ReadableStream of bytes.
// An event cut by the end of the stream is dropped, as EventSource drops
// it: a stream that ends mid-event did not finish.
export async function* dataEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let data = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let start = 0;
      for (;;) {
        const cr = buf.indexOf("\r", start);
        const lf = buf.indexOf("\n", start);
        let end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
        if (end < 0) break;
        let next = end + 1;
        if (buf[end] === "\r") {
          // A CR at the end of what came so far may be the first half of
          // a CRLF split across reads: wait for the next byte.
          if (end + 1 === buf.length) break;
          if (buf[end + 1] === "\n") next++;
        }
        const line = buf.slice(start, end);
        start = next;
        if (line === "") {
          if (data !== null) yield data;
          data = null;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        if (field !== "data") continue;
        let v = colon < 0 ? "" : line.slice(colon + 1);
        if (v.startsWith(" ")) v = v.slice(1);
        data = data === null ? v : data + "\n" + v;
      }
      buf = buf.slice(start);
    }
  } finally {
    reader.releaseLock();
  }
}
