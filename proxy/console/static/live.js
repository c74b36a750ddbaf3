// The Live view (admin key): the turns in progress on this replica, from
// GET /admin/live's server-sent events (a snapshot, then each change),
// read while the view is shown. A call waiting for a decision has a
// Review button that opens the approval dialog, decided with the admin
// key (an admin decides any key's approvals).

import { adminKey, authHeaders, errorMessage, el } from "./api.js";
import { NEEDS_ADMIN_KEY } from "./admin.js";
import { events } from "./sse.js";
import { parseLive, reduce, ordered, summary, waiting } from "./livestate.js";

const retryMs = 2000;

export class LiveView {
  constructor(approvals) {
    this.approvals = approvals;
    this.status = document.getElementById("live-status");
    this.table = document.getElementById("live-table");
    this.turns = new Map();
    this.ctrl = null;
    this.retry = null;
  }

  // start reads the stream until stop; a stream that ends or breaks is
  // read again, from a fresh snapshot, while the view is shown.
  start() {
    if (this.ctrl) return;
    if (!adminKey()) {
      this.status.textContent = NEEDS_ADMIN_KEY;
      return;
    }
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.read(ctrl).then((again) => {
      if (this.ctrl !== ctrl) return; // stopped meanwhile
      this.ctrl = null;
      if (again) this.retry = setTimeout(() => this.start(), retryMs);
    });
  }

  stop() {
    clearTimeout(this.retry);
    this.ctrl?.abort();
    this.ctrl = null;
  }

  // read follows one connection; it returns whether to connect again
  // (not after a refusal: a wrong key stays wrong).
  async read(ctrl) {
    this.status.textContent = "Connecting…";
    let resp;
    try {
      resp = await fetch("/admin/live", { headers: { Accept: "text/event-stream", ...authHeaders(adminKey()) }, signal: ctrl.signal, cache: "no-store" });
    } catch (e) {
      if (!ctrl.signal.aborted) this.status.textContent = `The live stream could not be opened (${e.message}); trying again…`;
      return true;
    }
    if (!resp.ok) {
      this.status.textContent = `The live stream was refused: ${await errorMessage(resp)}`;
      return resp.status >= 500 || resp.status === 429;
    }
    try {
      for await (const ev of events(resp.body)) {
        this.turns = reduce(this.turns, parseLive(ev.data));
        this.draw();
      }
    } catch (e) {
      if (ctrl.signal.aborted) return false;
      this.status.textContent = `The live stream broke (${e.message}); reconnecting…`;
      return true;
    }
    if (!ctrl.signal.aborted) this.status.textContent = "The live stream ended; reconnecting…";
    return true;
  }

  draw() {
    // A call decided elsewhere (its chat, another console, a script) or
    // whose turn ended no longer waits: its dialog, if open here, closes.
    const still = new Set([...this.turns.values()].flatMap((t) => waiting(t).map((c) => c.action_id)));
    for (const [id, a] of this.approvals.pending) {
      if (a.fromLive && !still.has(id)) this.approvals.dismiss(id);
    }
    this.status.textContent = summary(this.turns);
    const rows = ordered(this.turns).map((t) => this.row(t));
    this.table.tBodies[0].replaceChildren(...rows);
    this.table.hidden = rows.length === 0;
  }

  row(t) {
    const calls = (t.calls ?? []).map((c) => {
      const li = el("li", { "data-live-call-id": c.call_id, "data-live-status": c.status },
        el("code", { text: c.tool }), " ",
        el("span", { class: `badge s-${c.status === "running" ? "started" : "pending_approval"}`, text: c.status === "running" ? "running" : "waiting for approval" }));
      if (c.status === "waiting_approval" && c.action_id) {
        const b = el("button", { type: "button", class: "secondary review", text: "Review", "aria-label": `Review ${c.tool} of ${t.key || "the open proxy"}` });
        b.addEventListener("click", () => this.approvals.open({
          actionId: c.action_id, tool: c.tool, args: c.arguments, expiresAt: c.expires_at, key: adminKey, fromLive: true,
        }));
        li.append(" ", b);
      }
      return li;
    });
    return el("tr", { "data-live-id": t.id, "data-turn-id": t.turn_id ?? "" },
      el("td", {}, el("time", { datetime: t.started_at, text: t.started_at ? new Date(t.started_at).toLocaleTimeString() : "" })),
      el("td", {}, el("code", { text: t.key || "(no key)" })),
      el("td", {}, el("code", { text: t.model ?? "" })),
      el("td", { text: t.route ?? "" }),
      el("td", { class: "round", text: String(t.round ?? "") }),
      el("td", {}, calls.length ? el("ul", { class: "live-calls" }, ...calls) : el("span", { class: "note", text: "model answering" })),
    );
  }
}
