// The Keys view (admin key): every client key with its scopes and limits
// (GET /admin/keys), each with its requests per day over the last two
// weeks (GET /admin/usage); a runtime key created (its secret shown once),
// its scopes and limits changed (PATCH, with the answer's warnings shown),
// or revoked (DELETE).

import { adminKey, authHeaders, errorMessage, getJSON, el } from "./api.js";
import { NEEDS_ADMIN_KEY } from "./admin.js";
import { keyBody, limitText, listText, localInput, warningText } from "./keyform.js";
import { lastDays, series, total, usageChart } from "./chart.js";

const usageDays = 14;

// sendJSON sends a body to an admin route and returns the parsed answer
// (null for 204); a refusal throws an Error whose message is fit to show.
async function sendJSON(method, path, body) {
  const headers = { ...authHeaders(adminKey()) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!resp.ok) throw new Error(await errorMessage(resp));
  return resp.status === 204 ? null : resp.json();
}

export class KeysView {
  constructor() {
    const $ = (id) => document.getElementById(id);
    this.status = $("keys-status");
    this.table = $("keys-table");
    this.form = $("key-form");
    this.title = $("key-form-title");
    this.nameEl = $("key-name");
    this.submit = $("key-submit");
    this.cancel = $("key-cancel");
    this.errorEl = $("key-form-error");
    this.warnings = $("key-warnings");
    this.secret = $("key-secret");
    this.secretValue = $("key-secret-value");
    this.copyNote = $("key-copy-note");
    this.editing = null; // the name of the key being changed, or null
    this.loaded = false;
    $("keys-load").addEventListener("click", () => this.load());
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.save();
    });
    this.cancel.addEventListener("click", () => this.startCreate());
    $("key-copy").addEventListener("click", () => this.copy());
  }

  field(name) {
    return this.form.elements.namedItem(name);
  }

  async load() {
    if (!adminKey()) {
      this.status.textContent = NEEDS_ADMIN_KEY;
      return;
    }
    this.status.textContent = "Loading…";
    const days = lastDays(usageDays);
    let list, usage;
    try {
      [list, usage] = await Promise.all([
        getJSON("/admin/keys", adminKey()),
        getJSON(`/admin/usage?from=${days[0]}&to=${days[days.length - 1]}`, adminKey()).catch((e) => ({ error: e.message })),
      ]);
    } catch (e) {
      this.status.textContent = `The keys could not be listed: ${e.message}`;
      return;
    }
    this.loaded = true;
    const keys = list.data ?? [];
    // An open proxy (no client keys) takes requests without a key until
    // one is created: say so before someone creates one.
    const count = keys.length === 0
      ? "No client keys: this proxy takes requests without one, and creating a key makes keys required from then on"
      : keys.length === 1 ? "1 key" : `${keys.length} keys`;
    this.status.textContent = count +
      (usage.error ? `; usage could not be read: ${usage.error}` : `; requests per UTC day, ${days[0]} to ${days[days.length - 1]}.`);
    this.table.tBodies[0].replaceChildren(...keys.map((k) => this.row(k, usage.error ? null : series(usage.data, k.name, days))));
    this.table.hidden = keys.length === 0;
  }

  row(k, use) {
    const actions = el("td", { class: "key-actions" });
    if (k.source === "runtime") {
      const edit = el("button", { type: "button", class: "secondary", text: "Change", "aria-label": `Change ${k.name}` });
      const revoke = el("button", { type: "button", class: "danger", text: "Revoke", "aria-label": `Revoke ${k.name}` });
      edit.addEventListener("click", () => this.startEdit(k));
      revoke.addEventListener("click", () => this.revoke(k.name));
      actions.append(edit, revoke);
    } else {
      actions.append(el("span", { class: "note", text: "edit the config file" }));
    }
    const usageCell = el("td", { class: "usage" });
    if (use) {
      const calls = total(use, "tool_calls");
      const tokens = total(use, "prompt_tokens") + total(use, "completion_tokens");
      usageCell.append(usageChart(use), el("p", {
        class: "note usage-total",
        text: `${total(use, "requests")} requests · ${calls} tool calls · ${tokens} tokens (${total(use, "cached_tokens")} cached)`,
      }));
    }
    return el("tr", { "data-key": k.name, "data-source": k.source },
      el("th", { scope: "row" }, el("code", { text: k.name })),
      el("td", { text: k.source }),
      el("td", { class: "scope models", text: listText(k.models) }),
      el("td", { class: "scope tools", text: listText(k.tools) }),
      el("td", { text: limitText(k.limits) }),
      el("td", { text: k.expires_at ? new Date(k.expires_at).toLocaleString() : "never" }),
      usageCell,
      actions,
    );
  }

  // startCreate empties the form for a new key.
  startCreate() {
    this.editing = null;
    this.form.reset();
    this.nameEl.disabled = false;
    this.title.textContent = "New runtime key";
    this.submit.textContent = "Create key";
    this.cancel.hidden = true;
    this.errorEl.textContent = "";
  }

  // startEdit fills the form with a runtime key's scopes and limits.
  startEdit(k) {
    this.editing = k.name;
    this.secret.hidden = true;
    this.nameEl.value = k.name;
    this.nameEl.disabled = true;
    this.field("models").value = (k.models ?? []).join(", ");
    this.field("tools").value = (k.tools ?? []).join(", ");
    for (const f of ["requests_per_minute", "tokens_per_minute", "concurrent_turns"]) {
      this.field(f).value = k.limits?.[f] || "";
    }
    this.field("expires_at").value = localInput(k.expires_at);
    this.title.textContent = `Change ${k.name}`;
    this.submit.textContent = "Save changes";
    this.cancel.hidden = false;
    this.errorEl.textContent = "";
    this.warnings.hidden = true;
    this.field("tools").focus();
  }

  async save() {
    const f = Object.fromEntries(new FormData(this.form));
    if (this.editing) f.name = this.editing;
    const { body, error } = keyBody(f, { create: !this.editing });
    this.errorEl.textContent = error ?? "";
    if (error) return;
    this.submit.disabled = true;
    let answer;
    try {
      answer = this.editing
        ? await sendJSON("PATCH", `/admin/keys/${encodeURIComponent(this.editing)}`, body)
        : await sendJSON("POST", "/admin/keys", body);
    } catch (e) {
      this.errorEl.textContent = e.message;
      return;
    } finally {
      this.submit.disabled = false;
    }
    this.showWarnings(answer.name, this.editing ? "changed" : "created", answer.warnings);
    if (!this.editing) this.showSecret(answer);
    this.startCreate();
    await this.load();
  }

  // showWarnings lists what the proxy accepted but doubts (a tool no
  // source defines, with the name it may have meant).
  showWarnings(name, done, ws) {
    const list = ws ?? [];
    this.warnings.hidden = list.length === 0;
    this.warnings.querySelector("p").textContent = `${name} was ${done}, but check:`;
    this.warnings.querySelector("ul").replaceChildren(...list.map((w) => el("li", { text: warningText(w) })));
  }

  // showSecret shows a new key's secret, this once: the proxy keeps only
  // its hash.
  showSecret(k) {
    this.secret.hidden = false;
    this.secret.dataset.key = k.name;
    document.getElementById("key-secret-name").textContent = k.name;
    this.secretValue.value = k.key ?? "";
    this.copyNote.textContent = "";
    this.secretValue.focus();
    this.secretValue.select();
  }

  async copy() {
    this.secretValue.select();
    try {
      await navigator.clipboard.writeText(this.secretValue.value);
      this.copyNote.textContent = "Copied.";
    } catch {
      // No clipboard access (a page not served over HTTPS or loopback):
      // the key is selected for Ctrl+C.
      this.copyNote.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  }

  async revoke(name) {
    if (!window.confirm(`Revoke ${name}? Its next request gets 401, and its turns in progress stop at their next round.`)) return;
    try {
      await sendJSON("DELETE", `/admin/keys/${encodeURIComponent(name)}`);
    } catch (e) {
      this.status.textContent = `${name} could not be revoked: ${e.message}`;
      return;
    }
    if (this.secret.dataset.key === name) this.secret.hidden = true;
    if (this.editing === name) this.startCreate();
    await this.load();
    this.status.textContent = `${name} is revoked. ${this.status.textContent}`;
  }
}
