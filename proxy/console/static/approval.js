// The approval dialog: a call of an `approval: always` tool waits until a
// person answers POST /v1/actions/{id}/approve or /deny, with the key that
// started the turn. Escape (or "Decide later") only hides the dialog: the
// call keeps waiting, and its card offers the dialog again. The arguments
// are editable: approving changed arguments sends them, and the call runs
// with those; an edit the tool's schema refuses shows the server's error
// and keeps the dialog, the call still waiting.

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
    // Redacted fields show as "[redacted]": sent back as they are, they
    // keep the model's values.
    this.argsEl.value = a.args === undefined ? "(not shown)" : JSON.stringify(a.args, null, 2);
    this.argsEl.readOnly = a.args === undefined;
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

  // edited returns the arguments in the field when the person changed
  // them, undefined when not (the approval then sends no body); it throws
  // on text that is not JSON.
  edited(a) {
    if (a.args === undefined) return undefined;
    const text = this.argsEl.value.trim();
    if (text === JSON.stringify(a.args, null, 2)) return undefined;
    const v = JSON.parse(text);
    return JSON.stringify(v) === JSON.stringify(a.args) ? undefined : v;
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
    if (verb === "approve") {
      let edit;
      try {
        edit = this.edited(a);
      } catch (e) {
        this.errorEl.textContent = `The arguments are not valid JSON: ${e.message}`;
        this.setBusy(false);
        return;
      }
      if (edit !== undefined) {
        headers["Content-Type"] = "application/json";
        body = JSON.stringify({ arguments: edit });
      }
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
