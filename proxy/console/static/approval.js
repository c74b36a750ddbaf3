// The approval dialog: a call of an `approval: always` tool waits until a
// person answers POST /v1/actions/{id}/approve or /deny, with the key that
// started the turn. Escape (or "Decide later") only hides the dialog: the
// call keeps waiting, and its card offers the dialog again.

import { authHeaders, apiKey, errorMessage } from "./api.js";

export class Approvals {
  constructor() {
    this.dialog = document.getElementById("approval");
    this.pending = new Map(); // action id → {actionId, tool, args, expiresAt, card}
    this.current = null;
    this.busy = false;
    const $ = (id) => document.getElementById(id);
    this.toolEl = $("approval-tool");
    this.argsEl = $("approval-args");
    this.expiresEl = $("approval-expires");
    this.reasonEl = $("deny-reason");
    this.errorEl = $("approval-error");
    this.buttons = [$("approve"), $("deny")];
    $("approve").addEventListener("click", () => this.decide("approve"));
    $("deny").addEventListener("click", () => this.decide("deny"));
    $("approval-later").addEventListener("click", () => this.later());
    this.dialog.addEventListener("cancel", (e) => {
      // Escape: hide, decide nothing.
      e.preventDefault();
      this.later();
    });
  }

  // request shows an approval.requested event.
  request(a) {
    a.deferred = false;
    this.pending.set(a.actionId, a);
    a.card.waiting(() => this.reopen(a.actionId));
    if (!this.current) this.showNext();
  }

  // dismiss forgets an action decided elsewhere or expired.
  dismiss(actionId) {
    this.pending.delete(actionId);
    if (this.current?.actionId === actionId) {
      this.close();
      this.showNext();
    }
  }

  // clear forgets every action (the turn ended or was stopped).
  clear() {
    this.pending.clear();
    this.close();
  }

  reopen(actionId) {
    const a = this.pending.get(actionId);
    if (!a) return;
    a.deferred = false;
    if (this.current && this.current !== a) this.close();
    this.show(a);
  }

  later() {
    if (this.current) this.current.deferred = true;
    this.close();
    this.showNext();
  }

  showNext() {
    for (const a of this.pending.values()) {
      if (!a.deferred) return this.show(a);
    }
  }

  show(a) {
    this.current = a;
    this.toolEl.textContent = a.tool;
    this.argsEl.textContent = a.args === undefined ? "(not shown)" : JSON.stringify(a.args, null, 2);
    this.expiresEl.textContent = a.expiresAt
      ? `Denied automatically at ${new Date(a.expiresAt).toLocaleTimeString()} if nobody decides.` : "";
    this.reasonEl.value = "";
    this.errorEl.textContent = "";
    this.setBusy(false);
    if (!this.dialog.open) this.dialog.showModal();
  }

  close() {
    this.current = null;
    if (this.dialog.open) this.dialog.close();
  }

  setBusy(on) {
    this.busy = on;
    for (const b of this.buttons) b.disabled = on;
  }

  async decide(verb) {
    const a = this.current;
    if (!a || this.busy) return;
    this.setBusy(true);
    const headers = authHeaders(apiKey());
    let body;
    const reason = this.reasonEl.value.trim();
    if (verb === "deny" && reason) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify({ reason });
    }
    try {
      const resp = await fetch(`/v1/actions/${encodeURIComponent(a.actionId)}/${verb}`, { method: "POST", headers, body });
      if (!resp.ok) {
        this.errorEl.textContent = await errorMessage(resp);
        this.setBusy(false);
        return;
      }
    } catch (e) {
      this.errorEl.textContent = e.message;
      this.setBusy(false);
      return;
    }
    a.card.resolved(verb === "approve" ? "approved" : "denied");
    this.dismiss(a.actionId);
  }
}
