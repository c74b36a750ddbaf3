// One assistant message: the turn's text from the first token, with a card
// per tool call where the call happened, whatever the number of rounds.
// Hooks scripts rely on (docs/console.md): the message has data-role="assistant";
// each card has data-call-id and data-status (running, ok, error, denied,
// cancelled).

import { el, pretty, duration } from "./api.js";
import { CardSplitter, parseCard } from "./markdown.js";
import { endsSentence, sentenceEnd } from "./sentence.js";

const statusText = {
  running: "running…",
  waiting: "waiting for approval",
  ok: "ok",
  error: "error",
  denied: "denied",
  cancelled: "cancelled",
};

// ToolCard is one server-tool call, collapsed to its name, status and
// duration; expanded, its arguments and result or error.
export class ToolCard {
  constructor(callId, name, args) {
    this.callId = callId;
    this.name = name || "(unnamed call)";
    this.args = args;
    this.briefEl = el("code", { class: "brief" });
    this.statusEl = el("span", { class: "status" });
    this.durationEl = el("span", { class: "duration" });
    this.argsEl = el("pre", { class: "args" });
    this.outcome = el("div", { class: "outcome" });
    // In the summary: a call waiting for a decision keeps its Review
    // button in sight on the collapsed card, after "Decide later" too.
    this.actions = el("span", { class: "card-actions" });
    this.argsHead = el("h4", { text: "Arguments" });
    this.elem = el(
      "details",
      { class: "card", "data-call-id": callId },
      el("summary", {},
        el("span", { class: "icon", "aria-hidden": "true" }),
        el("span", { class: "tool", text: this.name }),
        this.briefEl,
        this.statusEl,
        this.actions,
        this.durationEl),
      el("div", { class: "card-body" }, this.argsHead, this.argsEl, this.outcome),
    );
    this.setArgs(args);
    this.setStatus("running");
  }

  get status() {
    return this.elem.dataset.status;
  }

  setArgs(args) {
    if (args === undefined) return;
    this.args = args;
    this.argsEl.textContent = pretty(args);
    // One line in the summary tells calls of the same tool apart.
    const line = typeof args === "string" ? args : JSON.stringify(args);
    this.briefEl.textContent = line.length > 80 ? line.slice(0, 79) + "…" : line;
  }

  setStatus(s, label) {
    this.elem.dataset.status = s;
    this.statusEl.textContent = label ?? statusText[s] ?? s;
  }

  // waiting shows that the call waits for a person; onReview reopens
  // the approval dialog.
  waiting(onReview) {
    this.setStatus("running", statusText.waiting);
    const b = el("button", { type: "button", class: "secondary review", text: "Review approval" });
    b.addEventListener("click", (e) => {
      e.preventDefault(); // a button in a summary must not fold the card
      onReview();
    });
    this.actions.replaceChildren(b);
  }

  // resolved shows a decision; edit is the arguments a person approved
  // the call with, shown at once in place of the model's.
  resolved(decision, edit) {
    this.actions.replaceChildren();
    if (edit !== undefined) this.setEdited(edit);
    if (this.status === "running") {
      const approved = edit !== undefined ? "approved with your edit, running…" : "approved, running…";
      this.setStatus("running", decision === "approved" ? approved : `${decision}…`);
    }
  }

  // setEdited shows the arguments a person approved the call with.
  setEdited(args) {
    this.setArgs(args);
    this.elem.classList.add("edited");
    this.argsHead.textContent = "Arguments, as edited by the approver";
  }

  // finish shows a tool.finished event. Its arguments, when it has any,
  // are those a person approved the call with instead of the model's.
  finish(ev) {
    this.actions.replaceChildren();
    if (ev.arguments !== undefined) this.setEdited(ev.arguments);
    this.setStatus(ev.status || "error");
    this.durationEl.textContent = duration(ev.duration_ms);
    if (ev.error) {
      this.outcome.replaceChildren(
        el("h4", { text: "Error" }),
        el("p", { class: "error-text" }, el("code", { text: ev.error.code ?? "" }), " ", ev.error.message ?? ""));
    } else if (ev.result !== undefined) {
      this.outcome.replaceChildren(
        el("h4", { text: ev.truncated ? "Result (cut)" : "Result" }),
        el("pre", { class: "result", text: pretty(ev.result) }));
    }
  }

  cancel() {
    if (this.status !== "running") return false;
    this.actions.replaceChildren();
    this.setStatus("cancelled");
    return true;
  }
}

// AssistantMessage is the element a turn streams into.
export class AssistantMessage {
  constructor(transcript) {
    this.body = el("div", { class: "msg-body" });
    this.meta = el("p", { class: "meta" });
    this.elem = el("article", { class: "msg assistant", "data-role": "assistant", "aria-label": "Assistant" },
      el("h3", { class: "who", text: "Assistant" }), this.body, this.meta);
    this.cards = new Map();
    this.held = []; // new cards waiting for the sentence they came in to end
    this.heldFrom = 0; // where in textSeg's text that sentence was cut
    this.parts = [];
    this.rounds = 1;
    this.textSeg = null;
    this.splitter = new CardSplitter();
    transcript.append(this.elem);
    this.streaming(true);
  }

  streaming(on) {
    this.elem.classList.toggle("streaming", on);
  }

  // text appends visible text; cards of display: markdown inside it
  // become cards. The conversation keeps the text as it came, cards
  // included: the proxy recognises them by their call ids.
  text(s) {
    if (!s) return;
    this.parts.push(s);
    this.show(this.splitter.feed(s));
  }

  // flush shows what the card splitter still holds; the stream is over.
  flush() {
    this.show(this.splitter.end());
    this.placeHeld();
  }

  show(pieces) {
    for (const p of pieces) {
      if (p.card) {
        // A block's arguments are the call's own, not an approver's edit.
        const { arguments: args, ...ev } = parseCard(p.card);
        this.card(ev.call_id, ev.name, args).finish(ev);
      } else {
        this.appendText(p.text);
      }
    }
  }

  // appendText adds to the current text segment. Text after a card starts
  // a new one, so cards stay where the calls were; the blank lines that
  // set a card apart in plain text are dropped around it.
  appendText(s) {
    if (!this.textSeg) {
      s = s.replace(/^\s+/, "");
      if (!s) return;
      this.textSeg = el("div", { class: "text" });
      this.body.append(this.textSeg);
    }
    this.textSeg.append(s);
    if (!this.held.length) return;
    // Cards held mid-sentence go where the sentence ends; the rest of
    // the text follows them.
    const full = this.textSeg.textContent;
    const end = sentenceEnd(full, this.heldFrom);
    if (end < 0) return;
    this.textSeg.textContent = full.slice(0, end);
    this.placeHeld();
    this.appendText(full.slice(end));
  }

  reasoning(s) {
    if (!s) return;
    if (!this.reasoningEl) {
      this.placeHeld();
      this.reasoningEl = el("pre", { class: "reasoning-text" });
      this.body.append(el("details", { class: "reasoning" }, el("summary", { text: "Reasoning" }), this.reasoningEl));
      this.textSeg = null;
    }
    this.reasoningEl.append(s);
  }

  // card returns the call's card, adding it here when it is new.
  card(callId, name, args) {
    let c = this.cards.get(callId);
    if (!c) {
      c = new ToolCard(callId, name, args);
      this.cards.set(callId, c);
      if (!this.held.length && this.textSeg && !endsSentence(this.textSeg.textContent)) {
        this.heldFrom = this.textSeg.textContent.length;
      }
      if (this.held.length || this.heldFrom) this.held.push(c);
      else this.place(c);
    } else {
      c.setArgs(args);
    }
    return c;
  }

  place(c) {
    if (this.textSeg) this.textSeg.textContent = this.textSeg.textContent.replace(/\s+$/, "");
    this.body.append(c.elem);
    this.textSeg = null;
    this.reasoningEl = null;
  }

  // placeHeld shows the held cards now: the sentence ended, or something
  // else comes (a note, an approval, the next round, the end).
  placeHeld() {
    const held = this.held;
    this.held = [];
    this.heldFrom = 0;
    for (const c of held) this.place(c);
  }

  note(s) {
    this.placeHeld();
    this.body.append(el("p", { class: "note", text: s }));
    this.textSeg = null;
  }

  error(s) {
    this.placeHeld();
    this.body.append(el("p", { class: "error", role: "alert", text: s }));
    this.textSeg = null;
  }

  // cancelRunning marks the cards still running cancelled: a stopped
  // stream carries no more events, so nothing else will.
  cancelRunning() {
    this.placeHeld();
    let n = 0;
    for (const c of this.cards.values()) if (c.cancel()) n++;
    return n;
  }

  // content is the visible text, which the conversation keeps: the
  // proxy puts the tool rounds back in from its own records.
  get content() {
    return this.parts.join("");
  }

  finish({ finishReason, usage }) {
    const bits = [];
    if (finishReason) bits.push(`finish_reason ${finishReason}`);
    // Rounds are counted from round.started, which only the events
    // display sends.
    if (this.rounds > 1) bits.push(`${this.rounds} rounds`);
    if (this.cards.size) bits.push(this.cards.size === 1 ? "1 tool call" : `${this.cards.size} tool calls`);
    if (usage?.total_tokens !== undefined) {
      bits.push(`${usage.total_tokens} tokens (${usage.prompt_tokens} in, ${usage.completion_tokens} out)`);
    }
    this.meta.textContent = bits.join(" · ");
  }
}
