// The admin views: every server tool (GET /admin/tools) and the audit log
// (GET /admin/calls), both with the admin key.

import { adminKey, getJSON, el, pretty, duration } from "./api.js";

// NEEDS_ADMIN_KEY is what an admin view says before an admin key is
// entered, rather than sending a request the proxy would refuse with a
// word about API keys.
export const NEEDS_ADMIN_KEY = "This view needs the Admin key: enter it at the top of the page.";

export class ToolsView {
  constructor() {
    const $ = (id) => document.getElementById(id);
    this.status = $("tools-status");
    this.table = $("tools-table");
    this.servers = $("mcp-servers");
    this.loaded = false;
    $("tools-load").addEventListener("click", () => this.load());
  }

  async load() {
    if (!adminKey()) {
      this.status.textContent = NEEDS_ADMIN_KEY;
      return;
    }
    this.status.textContent = "Loading…";
    let list;
    try {
      list = await getJSON("/admin/tools", adminKey());
    } catch (e) {
      this.status.textContent = `The tools could not be listed: ${e.message}`;
      return;
    }
    this.loaded = true;
    const tools = list.data ?? [];
    this.status.textContent = tools.length === 1 ? "1 tool" : `${tools.length} tools`;
    const rows = tools.map((t) => el("tr", { "data-tool": t.name },
      el("th", { scope: "row" }, el("code", { text: t.name }), el("p", { class: "desc", text: t.description ?? "" })),
      el("td", { text: t.source ?? "" }),
      el("td", { text: t.server_state ?? (t.source?.startsWith("mcp:") ? "unknown" : "—") }),
      el("td", { text: t.approval || "never" }),
      el("td", {}, el("details", {}, el("summary", { text: paramSummary(t.parameters) }),
        el("pre", { text: pretty(t.parameters ?? {}) }))),
    ));
    this.table.tBodies[0].replaceChildren(...rows);
    this.table.hidden = tools.length === 0;
    const servers = list.mcp_servers ?? [];
    this.servers.replaceChildren(...(servers.length ? [
      el("h2", { text: "MCP servers" }),
      el("ul", { class: "servers" }, ...servers.map((s) => el("li", { "data-server": s.name, "data-state": s.status },
        el("code", { text: s.name }), ` ${s.status} · ${s.tools} tools`, s.error ? ` · ${s.error}` : ""))),
    ] : []));
    const names = document.getElementById("audit-tools");
    names.replaceChildren(...tools.map((t) => el("option", { value: t.name })));
  }
}

// paramSummary names a schema's properties, required ones marked.
function paramSummary(schema) {
  const props = Object.keys(schema?.properties ?? {});
  if (!props.length) return "no parameters";
  const req = new Set(schema.required ?? []);
  return props.map((p) => (req.has(p) ? p + "*" : p)).join(", ");
}

export class AuditView {
  constructor() {
    const $ = (id) => document.getElementById(id);
    this.form = $("audit-form");
    this.tool = $("audit-tool");
    this.statusSel = $("audit-status");
    this.limit = $("audit-limit");
    this.line = $("audit-status-line");
    this.table = $("audit-table");
    this.newest = $("audit-newest");
    this.older = $("audit-older");
    this.cursors = []; // "before" of each page shown so far, the current last
    this.next = null;
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.search();
    });
    this.newest.addEventListener("click", () => this.search());
    this.older.addEventListener("click", () => this.page(this.next));
  }

  search() {
    this.cursors = [];
    return this.page("");
  }

  async page(before) {
    if (!adminKey()) {
      this.line.textContent = NEEDS_ADMIN_KEY;
      return;
    }
    const q = new URLSearchParams();
    if (this.tool.value.trim()) q.set("tool", this.tool.value.trim());
    if (this.statusSel.value) q.set("status", this.statusSel.value);
    if (this.limit.value) q.set("limit", this.limit.value);
    if (before) q.set("before", before);
    this.line.textContent = "Loading…";
    let list;
    try {
      list = await getJSON(`/admin/calls?${q}`, adminKey());
    } catch (e) {
      this.line.textContent = `The audit log could not be read: ${e.message}`;
      return;
    }
    if (before) this.cursors.push(before);
    const calls = list.data ?? [];
    this.next = list.next ?? null;
    const pageNo = this.cursors.length + 1;
    this.line.textContent = calls.length
      ? `Page ${pageNo}: ${calls.length === 1 ? "1 call" : calls.length + " calls"}${this.next ? "; older ones on the next page" : ""}.`
      : pageNo === 1 ? "No calls on record." : "No older calls.";
    this.table.tBodies[0].replaceChildren(...calls.flatMap(callRows));
    this.table.hidden = calls.length === 0;
    this.newest.disabled = pageNo === 1;
    this.older.disabled = !this.next;
  }
}

// callRows is a call's row and, under it, its details across the whole
// table (hidden until its call id is pressed): open, they are as wide as
// the table, not squeezed into the last column.
function callRows(c, i) {
  const detail = callDetail(c);
  const id = `audit-detail-${i}`;
  const toggle = el("button", { type: "button", class: "link", "aria-expanded": "false", "aria-controls": id },
    el("code", { text: c.call_id }));
  const detailRow = el("tr", { class: "audit-detail", id, hidden: true }, el("td", { colspan: 5 }, detail));
  toggle.addEventListener("click", () => {
    const open = detailRow.hidden;
    detailRow.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
  });
  // Not data-call-id and data-status: those mark the chat's cards, and a
  // script counting cards must not count audit rows.
  const row = el("tr", { "data-audit-call-id": c.call_id, "data-audit-status": c.status },
    el("td", {}, el("time", { datetime: c.started_at, text: shortTime(c.started_at) })),
    el("td", {}, el("code", { text: c.tool })),
    el("td", {}, el("span", { class: `badge s-${c.status}`, text: c.status })),
    el("td", { text: c.finished_at ? duration(c.duration_ms) : "—" }),
    el("td", { class: "call-id" }, toggle),
  );
  return [row, detailRow];
}

// shortTime is a time of today as the time alone, another day's with its
// date: the column stays narrow.
function shortTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso ?? "";
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

function callDetail(c) {
  return el("dl", { class: "call-detail" },
    el("dt", { text: "Arguments" }), el("dd", {}, el("pre", { text: pretty(c.arguments) })),
    ...(c.proposed_arguments !== undefined ? [el("dt", { text: "The model's arguments, before the approver's edit" }),
      el("dd", {}, el("pre", { text: pretty(c.proposed_arguments) }))] : []),
    ...(c.error_code ? [el("dt", { text: "Error" }), el("dd", {}, el("code", { text: c.error_code }), " ", c.error_message ?? "")] : []),
    ...(c.result_excerpt ? [el("dt", { text: "Result" }), el("dd", {}, el("pre", { text: c.result_excerpt }))] : []),
    ...(c.approval ? [el("dt", { text: "Approval" }), el("dd", { text: `${c.approval.decision ?? ""} by ${c.approval.decided_by ?? "?"}${c.approval.reason ? ": " + c.approval.reason : ""}` })] : []),
    el("dt", { text: "Turn" }), el("dd", {}, el("code", { text: c.turn_id ?? "" })),
    el("dt", { text: "Record" }), el("dd", {}, el("code", { text: c.id ?? "" })),
    ...(c.key_id ? [el("dt", { text: "Key" }), el("dd", {}, el("code", { text: c.key_id }))] : []),
    ...(c.source ? [el("dt", { text: "Source" }), el("dd", { text: c.source })] : []),
    el("dt", { text: "Executed" }), el("dd", { text: c.executed ? "yes: the tool got the call" : "no" }),
  );
}
