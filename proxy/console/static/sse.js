// Server-sent events from a fetch() body, read as the HTML standard's
// "interpreting an event stream" reads them for EventSource: lines end in
// LF, CR or CRLF; "data:" lines join with "\n"; a blank line ends an
// event; comment lines (": keepalive") and unknown fields are skipped.
// EventSource itself cannot POST or send Authorization, so every browser
// client of chat completions (and of the admin key's /admin/live) parses
// the stream like this.

// SSEParser turns text, in pieces cut anywhere, into events. It touches
// nothing but its own state, so it is tested without a browser.
export class SSEParser {
  constructor() {
    this.buf = "";
    this.reset();
  }

  reset() {
    this.data = null;
    this.event = "";
    this.id = undefined;
  }

  // push takes the next text and returns the events it completed, each
  // {event, data, id}: event is "" when the stream named none (the
  // standard's "message"), id undefined when the event carried none.
  push(text) {
    this.buf += text;
    const out = [];
    let start = 0;
    for (;;) {
      const cr = this.buf.indexOf("\r", start);
      const lf = this.buf.indexOf("\n", start);
      const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      if (end < 0) break;
      let next = end + 1;
      if (this.buf[end] === "\r") {
        // A CR at the end of what came so far may be the first half of
        // a CRLF split across reads: wait for the next byte.
        if (end + 1 === this.buf.length) break;
        if (this.buf[end + 1] === "\n") next++;
      }
      const ev = this.line(this.buf.slice(start, end));
      if (ev) out.push(ev);
      start = next;
    }
    this.buf = this.buf.slice(start);
    return out;
  }

  // line reads one line; a blank one returns the event it ended, if any
  // data came (an event without data is not dispatched).
  line(line) {
    if (line === "") {
      const ev = this.data === null ? null : { event: this.event, data: this.data, id: this.id };
      this.reset();
      return ev;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let v = colon < 0 ? "" : line.slice(colon + 1);
    if (v.startsWith(" ")) v = v.slice(1);
    if (field === "data") this.data = this.data === null ? v : this.data + "\n" + v;
    else if (field === "event") this.event = v;
    else if (field === "id" && !v.includes("\0")) this.id = v;
    return null;
  }
}

// events yields each event of a ReadableStream of bytes. An event cut by
// the end of the stream is dropped, as EventSource drops it: a stream
// that ends mid-event did not finish.
export async function* events(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const p = new SSEParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* p.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

// dataEvents yields the data of each event: what chat completions sends.
export async function* dataEvents(body) {
  for await (const ev of events(body)) yield ev.data;
}
