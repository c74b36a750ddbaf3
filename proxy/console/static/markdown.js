// Cards of display: markdown. The proxy writes each finished call into the
// text as the block chat UIs render (docs/stream.md):
//
//   <details type="tool_calls" done="true" id="call_…" name="get_weather" arguments="{&quot;city&quot;:…}" result="{…}">
//   <summary>get_weather ✓ 120 ms</summary>
//   …
//   </details>
//
// The console shows such a block as the same card the events display
// gets, and the rest of the text as text.

const open = '<details type="tool_calls"';
const close = "</details>";

// CardSplitter cuts card blocks out of streamed text. Text reaches the
// page at once, except a tail that may be the start of a block (held only
// until it cannot be) and an open block (until it closes).
export class CardSplitter {
  constructor() {
    this.buf = "";
  }

  // feed takes the next text and returns the pieces now complete, in
  // order: {text} or {card} (a whole block).
  feed(s) {
    this.buf += s;
    const out = [];
    for (;;) {
      const i = this.buf.indexOf(open);
      if (i < 0) {
        const keep = prefixTail(this.buf);
        const text = this.buf.slice(0, this.buf.length - keep);
        if (text) out.push({ text });
        this.buf = this.buf.slice(this.buf.length - keep);
        return out;
      }
      if (i > 0) out.push({ text: this.buf.slice(0, i) });
      const j = this.buf.indexOf(close, i);
      if (j < 0) {
        this.buf = this.buf.slice(i);
        return out;
      }
      out.push({ card: this.buf.slice(i, j + close.length) });
      this.buf = this.buf.slice(j + close.length);
    }
  }

  // end returns what is still held, as text: a block the stream never
  // closed is shown as it came.
  end() {
    const t = this.buf;
    this.buf = "";
    return t ? [{ text: t }] : [];
  }
}

// prefixTail is the length of the longest end of s that begins the
// opening marker.
function prefixTail(s) {
  for (let n = Math.min(s.length, open.length - 1); n > 0; n--) {
    if (open.startsWith(s.slice(-n))) return n;
  }
  return 0;
}

// parseCard reads a block into what a tool.finished event says. The block
// is parsed by DOMParser, whose documents are inert (nothing in them runs
// or loads), and only its attributes and text are read.
export function parseCard(block) {
  const d = new DOMParser().parseFromString(block, "text/html").querySelector("details");
  const attr = (k) => d?.getAttribute(k) ?? "";
  const json = (s) => {
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  };
  const ms = /(\d+) ms\s*$/.exec(d?.querySelector("summary")?.textContent ?? "");
  const ev = {
    call_id: attr("id"), name: attr("name"), arguments: json(attr("arguments")),
    duration_ms: ms ? Number(ms[1]) : undefined, status: "ok",
  };
  const result = json(attr("result"));
  const err = result && typeof result === "object" ? result.error : undefined;
  if (err && typeof err === "object" && err.code) {
    ev.error = err;
    ev.status = { DENIED: "denied", CANCELLED: "cancelled" }[err.code] ?? "error";
  } else {
    ev.result = result;
  }
  return ev;
}
