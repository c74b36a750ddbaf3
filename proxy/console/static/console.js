// The console's entry point: keys, views, the model list.

import { initKeys, apiKey, adminKey, getJSON, el } from "./api.js";
import { Chat } from "./chat.js";
import { Approvals } from "./approval.js";
import { ToolsView, AuditView } from "./admin.js";
import { KeysView } from "./keys.js";
import { LiveView } from "./live.js";

initKeys();
const approvals = new Approvals(); // one dialog, for the chat and the Live view
new Chat(approvals);
const tools = new ToolsView();
const audit = new AuditView();
const keys = new KeysView();
const live = new LiveView(approvals);

// Views: one shown at a time. The admin views load when shown.
const tabs = [...document.querySelectorAll("nav .tab")];
function show(name) {
  for (const t of tabs) {
    const on = t.dataset.view === name;
    if (on) t.setAttribute("aria-current", "page");
    else t.removeAttribute("aria-current");
    document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
  }
  // Without an admin key the view says it needs one. The Live view reads
  // its stream only while it is shown.
  if (name === "tools" && !tools.loaded) tools.load();
  if (name === "audit") audit.search();
  if (name === "keys") keys.load();
  if (name === "live") live.start();
  else live.stop();
}
for (const t of tabs) t.addEventListener("click", () => show(t.dataset.view));

// An admin key entered (or changed) while an admin view is shown loads
// that view with it.
document.getElementById("admin-key").addEventListener("change", () => {
  const current = tabs.find((t) => t.hasAttribute("aria-current"))?.dataset.view;
  if (current === "live") live.stop();
  if (current && current !== "chat") show(current);
});

// Models: GET /v1/models fills the field's suggestions. Any typed name is
// sent as it is: glob routes take models no list shows.
const modelInput = document.getElementById("model");
const modelsStatus = document.getElementById("models-status");
async function loadModels() {
  try {
    const list = await getJSON("/v1/models", apiKey());
    const ids = (list.data ?? []).map((m) => m.id);
    document.getElementById("models").replaceChildren(...ids.map((id) => el("option", { value: id })));
    if (!modelInput.value && ids.length) modelInput.value = ids[0];
    modelsStatus.textContent = ids.length ? "" : "No models listed: type a name.";
  } catch (e) {
    modelsStatus.textContent = `Models not listed (${e.message}); type a name.`;
  }
}
document.getElementById("api-key").addEventListener("change", loadModels);
loadModels();

document.getElementById("message").focus();
