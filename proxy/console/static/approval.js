// The approval dialog: a call of an `approval: always` tool waits until a
// person answers POST /v1/actions/{id}/approve or /deny, with the key that
// started the turn. Escape (or "Decide later") only hides the dialog: the
// call keeps waiting, and its card offers the dialog again. The arguments
// are editable: approving changed arguments sends them, and the call runs
// with those. The edit is checked as it is typed (a JSON object, or
// Approve stays off); an edit the tool's schema refuses shows the
// server's error and keeps the dialog, the call still waiting. The Live
// view opens the same dialog for any turn's call, with the admin key.

import { authHeaders, apiKey, errorMessage } from "./api.js";
import { argsText, checkEdit } from "./edit.js";

export class Approvals {
  constructor() {
    this.dialog = document.getElementById("approval");
    // action id → {actionId, tool, args, expiresAt, card?, key?, onDecided?}:
    // card is the chat's, key the key that decides (the API key when
    // unset), onDecided(verb, edit) what the Live view does after.
    this.pending = new Map();
    this.current = null;
    this.busy = false;
    const $ = (id) => document.getElementById(id);
    this.toolEl = $("approval-tool");
    this.argsEl = $("approval-args");
    this.expiresEl = $("approval-expires");
    this.reasonEl = $("deny-reason");
    this.errorEl = $("approval-error");
    this.editedEl = $("approval-edited");
    this.approveBtn = $("approve");
    this.buttons = [$("approve"), $("deny")];
    this.argsEl.addEventListener("input", () => this.check());
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

  // open shows an action the person asked to review (the Live view): it
  // waits in the same list as the chat's, and the dialog shows it now.
  open(a) {
    this.pending.set(a.actionId, a);
    this.reopen(a.actionId);
  }

  // dismiss forgets an action decided elsewhere or expired.
  dismiss(actionId) {
    this.pending.delete(actionId);
    if (this.current?.actionId === actionId) {
      this.close();
      this.showNext();
    }
  }

  // clear forgets the chat's actions (its turn ended or was stopped);
  // those the Live view opened stay.
  clear() {
    for (const [id, a] of this.pending) if (a.card) this.pending.delete(id);
    if (this.current?.card) this.close();
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
    this.argsEl.value = a.args === undefined ? "(not shown)" : argsText(a.args);
    this.argsEl.readOnly = a.args === undefined;
    this.expiresEl.textContent = a.expiresAt
      ? `Denied automatically at ${new Date(a.expiresAt).toLocaleTimeString()} if nobody decides.` : "";
    this.reasonEl.value = "";
    this.setBusy(false);
    this.check();
    if (!this.dialog.open) this.dialog.showModal();
  }

  // check reads the edit as it is typed: an error under the field and
  // Approve off while it is not a JSON object; the fields it changes
  // named when it is.
  check() {
    const a = this.current;
    if (!a) return { edit: undefined };
    const r = checkEdit(this.argsEl.value, a.args);
    this.errorEl.textContent = r.error ?? "";
    this.editedEl.textContent = r.changed?.length ? `Approve runs the call with your edit of ${r.changed.join(", ")}.` : "";
    this.approveBtn.disabled = this.busy || Boolean(r.error);
    return r;
  }

  close() {
    this.current = null;
    if (this.dialog.open) this.dialog.close();
  }

  setBusy(on) {
    this.busy = on;
    for (const b of this.buttons) b.disabled = on;
    // A server's refusal stays shown; Approve stays off for an edit that
    // is not an object.
    if (!on && this.current) this.approveBtn.disabled = Boolean(checkEdit(this.argsEl.value, this.current.args).error);
  }

  async decide(verb) {
    const a = this.current;
    if (!a || this.busy) return;
    this.setBusy(true);
    const headers = authHeaders(a.key ? a.key() : apiKey());
    let body, edit;
    const reason = this.reasonEl.value.trim();
    if (verb === "deny" && reason) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify({ reason });
    }
    if (verb === "approve") {
      const r = checkEdit(this.argsEl.value, a.args);
      if (r.error) {
        this.errorEl.textContent = r.error;
        this.setBusy(false);
        return;
      }
      edit = r.edit;
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
    a.card?.resolved(verb === "approve" ? "approved" : "denied", edit);
    a.onDecided?.(verb, edit);
    this.dismiss(a.actionId);
  }
}
