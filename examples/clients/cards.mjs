// Renders a toolstream turn in the terminal: the assistant's text as it
// streams, and each server-tool call as a card.
//
// toolstream sends tool activity on ordinary chat.completion.chunk objects,
// with an empty delta and an extension object that standard SDKs pass
// through untouched:
//
//   {"id":"chatcmpl-…","object":"chat.completion.chunk","choices":[{"index":0,"delta":{}}],
//    "toolstream":{"event":"tool.started","call_id":"call_…","name":"create_task",
//                  "arguments":{"title":"Buy groceries"},"round":1}}
//
// A card is one line once its call finished, collapsed:
//
//   ▸ create_task ✓ 2 ms
//
// or, expanded (--expand), with the arguments and the result under it:
//
//   ▾ create_task ✓ 2 ms
//       arguments  {"title":"Buy groceries","due":"2026-11-25","priority":1}
//       result     {"id":1,"title":"Buy groceries","due":"2026-11-25","priority":1,"done":false}
//
// Other marks: ✗ an error the model was told about, ⊘ denied by a person,
// ◌ cancelled. An approval request is shown at once, since somebody has to
// act on it.

const marks = { ok: '✓', error: '✗', denied: '⊘', cancelled: '◌' };

export class Cards {
  /**
   * @param {{write: (s: string) => void, expand?: boolean}} out
   */
  constructor({ write, expand = false }) {
    this.write = write;
    this.expand = expand;
    this.started = new Map(); // call_id → tool.started event
    this.atLineStart = true;
    // Whitespace at the end of the text is held back: a model writes
    // newlines between its tool calls that would only push cards apart.
    this.pending = '';
    this.cards = 0;
  }

  /** text prints a piece of the assistant's content. */
  text(s) {
    if (!s) return;
    this.pending += s;
    let body = this.pending.trimEnd();
    if (body === '') return;
    this.pending = this.pending.slice(body.length);
    if (this.atLineStart) {
      this.write('assistant ▸ ');
      body = body.trimStart();
    }
    this.write(body);
    this.atLineStart = false;
  }

  /**
   * event handles one toolstream extension object (chunk.toolstream).
   * Unknown events are ignored, so newer servers work with this renderer.
   */
  event(ev) {
    if (!ev || typeof ev !== 'object') return;
    switch (ev.event) {
      case 'tool.started':
        this.started.set(ev.call_id, ev);
        break;
      case 'tool.finished':
        this.card(ev);
        break;
      case 'approval.requested':
        this.line(`⏸ ${ev.name} waits for approval: POST /v1/actions/${ev.action_id}/approve (or /deny)`);
        break;
      case 'approval.resolved':
        this.line(`  ${ev.name}: ${ev.decision}`);
        break;
      case 'mode.fallback':
        this.line(`  (tool mode ${ev.from} → ${ev.to}: ${ev.reason})`);
        break;
    }
  }

  /** card prints a finished call. */
  card(ev) {
    const start = this.started.get(ev.call_id);
    this.started.delete(ev.call_id);
    this.cards++;
    const mark = marks[ev.status] ?? ev.status;
    let head = `${this.expand ? '▾' : '▸'} ${ev.name ?? start?.name} ${mark}`;
    if (ev.error) head += ` ${ev.error.code}: ${ev.error.message}`;
    if (typeof ev.duration_ms === 'number') head += ` ${ev.duration_ms} ms`;
    this.line(head);
    if (!this.expand) return;
    if (start?.arguments !== undefined) this.line(`    arguments  ${show(start.arguments)}`);
    if (ev.result !== undefined) this.line(`    result     ${show(ev.result)}`);
  }

  /** line prints a line of its own, ending the text line first. */
  line(s) {
    this.pending = '';
    if (!this.atLineStart) this.write('\n');
    this.write(s + '\n');
    this.atLineStart = true;
  }

  /** end finishes the output; calls that never finished are listed. */
  end() {
    for (const ev of this.started.values()) this.line(`▸ ${ev.name} … (no result)`);
    this.started.clear();
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }
}

/**
 * messagesEvent turns a content block of the Anthropic Messages API into
 * the tool event a card is drawn from, or undefined for other blocks. On
 * /v1/messages toolstream shows a server tool's call as an mcp_tool_use
 * block and its result as an mcp_tool_result block, each whole:
 *
 *   {"type":"mcp_tool_use","id":"mcptoolu_call_…","name":"create_task","server_name":"toolstream","input":{…}}
 *   {"type":"mcp_tool_result","tool_use_id":"mcptoolu_call_…","is_error":false,"content":[{"type":"text","text":"{…}"}]}
 */
export function messagesEvent(block) {
  switch (block?.type) {
    case 'mcp_tool_use':
      return { event: 'tool.started', call_id: block.id, name: block.name, arguments: block.input };
    case 'mcp_tool_result': {
      const text = (block.content ?? []).map((c) => (typeof c === 'string' ? c : c.text ?? '')).join('');
      const ev = { event: 'tool.finished', call_id: block.tool_use_id, status: block.is_error ? 'error' : 'ok' };
      if (block.is_error) {
        const [code, ...rest] = text.split(': ');
        ev.error = { code, message: rest.join(': ') };
      } else {
        ev.result = text;
      }
      return ev;
    }
  }
  return undefined;
}

/** show renders an argument or result value on one line. */
function show(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** options reads the flags and environment the examples share. */
export function options(argv = process.argv.slice(2), env = process.env) {
  return {
    baseURL: env.TOOLSTREAM_BASE_URL ?? 'http://127.0.0.1:8080/v1',
    // The demo needs no key; a real deployment's auth.keys entry goes here.
    apiKey: env.TOOLSTREAM_KEY ?? 'not-needed-for-the-demo',
    model: env.TOOLSTREAM_MODEL ?? 'demo-model',
    expand: argv.includes('--expand') || argv.includes('-e'),
  };
}

/** system and prompt are the conversation `toolstream demo` sends. */
export const system = "You are a helpful assistant that manages the user's task board.";
export const prompt =
  'Create three tasks for tomorrow: buy groceries, call the plumber and renew my passport. Then tell me what you did.';
