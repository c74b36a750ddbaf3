// The chat: one turn at a time through POST /v1/chat/completions, streamed
// and read like any OpenAI client reads it. The conversation lives in this
// page and is sent whole each turn; the assistant side keeps only the text
// the user saw, and the proxy stitches its tool rounds back in.

import { apiKey, authHeaders, errorMessage, el } from "./api.js";
import { dataEvents } from "./sse.js";
import { AssistantMessage } from "./message.js";

export class Chat {
  // approvals is the page's approval dialog (approval.js).
  constructor(approvals) {
    const $ = (id) => document.getElementById(id);
    this.transcript = $("transcript");
    this.form = $("chat-form");
    this.input = $("message");
    this.model = $("model");
    this.display = $("display");
    this.mode = $("mode");
    this.sendBtn = $("send");
    this.stopBtn = $("stop");
    this.approvals = approvals;
    this.history = [];
    this.turn = null;

    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.stopBtn.addEventListener("click", () => this.stop());
    $("new-chat").addEventListener("click", () => this.reset());
  }

  reset() {
    this.stop();
    this.history = [];
    this.transcript.replaceChildren();
    this.input.focus();
  }

  running(on) {
    this.sendBtn.disabled = on;
    this.stopBtn.disabled = !on;
    this.transcript.setAttribute("aria-busy", on ? "true" : "false");
  }

  // stop aborts the turn's request. The proxy hears the hang-up and
  // cancels the round and the calls in flight; the cards still running
  // here are marked cancelled, since the aborted stream says no more.
  stop() {
    const t = this.turn;
    if (!t) return;
    t.stopped = true;
    t.ctrl.abort();
    const n = t.msg.cancelRunning();
    t.msg.note(n ? `Stopped; ${n === 1 ? "1 running call" : n + " running calls"} cancelled.` : "Stopped.");
    this.approvals.clear();
  }

  async send() {
    if (this.turn) return;
    const text = this.input.value.trim();
    const model = this.model.value.trim();
    if (!text || !model) return;
    this.transcript.querySelector(".empty")?.remove();
    this.input.value = "";
    this.history.push({ role: "user", content: text });
    this.transcript.append(el("article", { class: "msg user", "data-role": "user", "aria-label": "You" },
      el("h3", { class: "who", text: "You" }), el("div", { class: "text", text })));
    const msg = new AssistantMessage(this.transcript);
    const t = { msg, ctrl: new AbortController(), stopped: false, received: false, history: this.history };
    this.turn = t;
    this.running(true);
    this.follow(true);
    try {
      await this.stream(t, model);
    } catch (e) {
      if (!t.stopped) msg.error(`The request failed: ${e.message}`);
    } finally {
      msg.flush();
      msg.streaming(false);
      if (!t.stopped) this.approvals.clear();
      if (t.history !== this.history) {
        // "New conversation" was pressed meanwhile: this turn is not in it.
      } else if (t.received) {
        if (msg.content) this.history.push({ role: "assistant", content: msg.content });
      } else if (!t.stopped) {
        // Nothing was answered (a wrong key, an unknown model): the
        // message is not part of the conversation; give it back to edit.
        this.history.pop();
        if (!this.input.value) this.input.value = text;
      }
      this.turn = null;
      this.running(false);
    }
  }

  async stream(t, model) {
    const headers = { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders(apiKey()) };
    if (this.display.value) headers["X-Toolstream-Display"] = this.display.value;
    if (this.mode.value) headers["X-Toolstream-Mode"] = this.mode.value;
    const body = JSON.stringify({
      model, stream: true, stream_options: { include_usage: true }, messages: this.history,
    });
    const resp = await fetch("/v1/chat/completions", { method: "POST", headers, body, signal: t.ctrl.signal });
    if (!resp.ok) {
      t.msg.error(await errorMessage(resp));
      return;
    }
    t.received = true;
    const end = { finishReason: "", usage: null };
    for await (const data of dataEvents(resp.body)) {
      if (data === "[DONE]") {
        t.msg.finish(end);
        return;
      }
      let chunk;
      try {
        chunk = JSON.parse(data);
      } catch {
        t.msg.error(`An event could not be read: ${data.slice(0, 200)}`);
        continue;
      }
      if (chunk.error) {
        // After the first byte a failure is one error event and the end
        // of the stream, without [DONE] (docs/stream.md).
        const e = chunk.error;
        t.msg.error(`The turn failed: ${e.message ?? JSON.stringify(e)}${e.code ? ` (${e.code})` : ""}`);
        return;
      }
      if (chunk.toolstream) {
        this.event(t.msg, chunk.toolstream);
        continue;
      }
      const c = chunk.choices?.[0];
      if (c) {
        t.msg.reasoning(c.delta?.reasoning_content ?? c.delta?.reasoning);
        t.msg.text(c.delta?.content);
        if (c.finish_reason) end.finishReason = c.finish_reason;
      }
      if (chunk.usage) end.usage = chunk.usage;
      this.follow();
    }
    if (!t.stopped) t.msg.error("The stream ended before [DONE]: the answer may be incomplete.");
  }

  // event shows one toolstream event (docs/stream.md); unknown ones are
  // ignored, as the contract asks.
  event(msg, ev) {
    switch (ev.event) {
      case "tool.started":
        msg.card(ev.call_id, ev.name, ev.arguments);
        break;
      case "tool.finished":
        msg.card(ev.call_id, ev.name).finish(ev);
        break;
      case "approval.requested": {
        const card = msg.card(ev.call_id, ev.name, ev.arguments);
        msg.placeHeld(); // a card that waits for a person is shown at once
        this.approvals.request({
          actionId: ev.action_id, tool: ev.name, args: ev.arguments ?? card.args, expiresAt: ev.expires_at, card,
        });
        break;
      }
      case "approval.resolved":
        msg.card(ev.call_id, ev.name).resolved(ev.decision, ev.arguments);
        this.approvals.dismiss(ev.action_id);
        break;
      case "round.started":
        msg.placeHeld();
        msg.rounds = Math.max(msg.rounds, ev.round ?? msg.rounds + 1);
        break;
      case "mode.fallback":
        msg.note(`Tool mode fell back from ${ev.from} to ${ev.to}: ${ev.reason ?? ""}`);
        break;
      case "upstream.fallback":
        msg.note(`Upstream ${ev.from} could not take round ${ev.round}; ${ev.to} did: ${ev.reason ?? ""}`);
        break;
      default:
        return;
    }
    this.follow();
  }

  // follow keeps the newest text in view while the reader is at the
  // bottom, and leaves them alone when they scrolled up to read; always
  // when a message is sent. The bottom of the page is the end of the
  // conversation just above the message box, which is pinned there.
  follow(always) {
    const doc = document.scrollingElement;
    if (always || doc.scrollHeight - doc.scrollTop - doc.clientHeight < 160) doc.scrollTop = doc.scrollHeight;
  }
}
