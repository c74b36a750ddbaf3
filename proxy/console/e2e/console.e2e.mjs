// Drives the console in headless Chromium through one scenario and checks
// it through the page's hooks (docs/console.md): the assistant message is one
// element with data-role="assistant", each tool card has data-call-id and
// data-status, the buttons and key fields are found by their labels.
//
//   node console.e2e.mjs two-tools|approve|edit|deny|stop|markdown|long|keys|live|sentence
//
// Environment: TOOLSTREAM_CONSOLE_URL (the proxy's root),
// TOOLSTREAM_API_KEY, TOOLSTREAM_ADMIN_KEY, TOOLSTREAM_HOOKS_URL (the
// webhook server, which counts arrivals), TOOLSTREAM_CHROMIUM (the
// browser), TOOLSTREAM_PLAYWRIGHT_MODULES (node_modules holding the
// pinned playwright-core), TOOLSTREAM_ARTIFACTS (where screenshots go).
// It prints "screenshot PATH" per picture and exits non-zero on the first
// failed check.

import { createRequire } from "node:module";
import path from "node:path";

const env = process.env;
const require = createRequire(import.meta.url);
const { chromium } = require(path.join(env.TOOLSTREAM_PLAYWRIGHT_MODULES, "playwright-core"));

const base = env.TOOLSTREAM_CONSOLE_URL;
const scenario = process.argv[2];
const scenarios = { "two-tools": twoTools, approve, edit, deny, stop, markdown, long: longChat, keys, live, sentence };
if (!scenarios[scenario]) {
  console.error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}

const browser = await chromium.launch({ executablePath: env.TOOLSTREAM_CHROMIUM, headless: true });
const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
const page = await context.newPage();
// Anything the page logs as an error fails the run: a Content-Security-
// Policy violation, a module that did not load, an uncaught exception.
// The errors expected are the browser's notes about the models list
// asked for before a key was entered, and (edit) about the approval the
// server refuses.
const problems = [];
page.on("console", (m) => {
  if (m.type() !== "error") return;
  if (/status of 401/.test(m.text()) && m.location().url.endsWith("/v1/models")) return;
  if (scenario === "edit" && /status of 400/.test(m.text()) && m.location().url.endsWith("/approve")) return;
  // keys: the revoked key's turn is refused, as it should be.
  if (scenario === "keys" && /status of 401/.test(m.text()) && m.location().url.endsWith("/v1/chat/completions")) return;
  problems.push(`console: ${m.text()} (${m.location().url})`);
});
page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));

let failed = false;
try {
  await page.goto(base + "/");
  await scenarios[scenario]();
  if (problems.length) throw new Error(`the page reported problems:\n${problems.join("\n")}`);
  console.log(`ok ${scenario}`);
} catch (e) {
  failed = true;
  console.error(`FAIL ${scenario}: ${e.message}`);
  await shot(`${scenario}-failure`).catch(() => {});
  const html = await page.locator("main").innerHTML().catch(() => "");
  console.error(`page:\n${html.slice(0, 6000)}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);

// --- scenarios ---

// twoTools: two calls in one round show two cards in the one assistant
// message, between the text of the first round and the second.
async function twoTools() {
  // The admin views say which key they need before one is entered.
  await page.getByRole("button", { name: "Tools", exact: true }).click();
  const toolsNote = await page.locator("#tools-status").innerText();
  check(toolsNote.includes("Admin key") && !toolsNote.includes("API key"), `Tools without an admin key: ${toolsNote}`);
  // Entered there, the key loads the view.
  await page.getByLabel("Admin key", { exact: true }).fill(env.TOOLSTREAM_ADMIN_KEY);
  await page.getByLabel("Admin key", { exact: true }).press("Tab");
  await until("the tools list once the admin key is in", () => document.querySelectorAll("#tools-view tbody tr").length === 3);
  await page.getByRole("button", { name: "Chat", exact: true }).click();
  await enterKeys();
  await ask("What's the weather in Paris and Oslo?");
  await turnDone();
  const msg = assistant(0);
  const cards = msg.locator("[data-call-id]");
  check(await page.locator('[data-role="assistant"]').count() === 1, "one assistant message");
  check(await cards.count() === 2, `two cards, got ${await cards.count()}`);
  for (const c of await cards.all()) {
    check(await c.getAttribute("data-status") === "ok", `card ${await c.getAttribute("data-call-id")} is ok`);
    check(/get_weather/.test(await c.locator("summary").innerText()), "card names the tool");
    check(/\d+ (ms|s)/.test(await c.locator(".duration").innerText()), "card shows the duration");
  }
  const text = await msg.innerText();
  check(text.includes("Let me look up both cities."), "first round's text");
  check(text.includes("Paris is sunny at 21 °C; Oslo has snow at -3 °C."), "second round's text");
  // Cards sit where the calls were: after round 1's text, before round 2's.
  const order = await msg.locator(".msg-body > *").evaluateAll((els) => els.map((e) => e.className));
  check(order.join(",") === "text,card,card,text", `text, cards, text in order: ${order}`);
  // Collapsed until opened; opened, the arguments and the result.
  const first = cards.nth(0);
  check(!(await first.evaluate((d) => d.open)), "cards start collapsed");
  await first.locator("summary").click();
  const body = await first.locator(".card-body").innerText();
  check(body.includes('"city": "Paris"') && body.includes('"sky": "sunny"'), `arguments and result shown: ${body}`);
  await shot("1-two-tools");

  // The keys outlive a reload (session storage) and are nowhere else.
  const stored = await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie]);
  check(stored[0] === 2 && stored[1] === 0 && stored[2] === "", `keys only in session storage: ${stored}`);

  // A second turn carries the conversation; it gets its own message.
  await ask("Thanks!");
  await turnDone();
  check(await page.locator('[data-role="assistant"]').count() === 2, "a second assistant message");
  check((await assistant(1).innerText()).includes("You're welcome."), "the second answer");

  // A narrow window: nothing wider than the window.
  await page.setViewportSize({ width: 380, height: 760 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `no sideways scrolling at 380px (${overflow}px too wide)`);
  await shot("1-two-tools-narrow");
}

// approve: the dialog shows the tool and its arguments; Approve lets the
// stream go on and the call run.
async function approve() {
  await enterKeys();
  await ask("Please delete task 7.");
  const dialog = await approvalDialog();
  const card = assistant(0).locator("[data-call-id]");
  check(await card.getAttribute("data-status") === "running", "the waiting call's card is running");
  await shot("2-approval-dialog");
  await dialog.getByRole("button", { name: "Approve", exact: true }).click();
  await turnDone();
  check(!(await dialog.isVisible()), "the dialog closed");
  check(await card.getAttribute("data-status") === "ok", `approved card is ok, got ${await card.getAttribute("data-status")}`);
  check((await assistant(0).innerText()).includes("Task 7 is deleted."), "the answer after the call");
  await card.locator("summary").click();
  check((await card.innerText()).includes('"deleted": 7'), "the result");
  await shot("2-approved");
}

// edit: the dialog's arguments are editable. An edit the tool's schema
// refuses shows the server's error and keeps the dialog, the action still
// pending; a valid edit approves the call, which runs with it.
async function edit() {
  await enterKeys();
  await ask("Please delete task 7.");
  const dialog = await approvalDialog();
  const args = dialog.getByLabel(/^Arguments/);
  const card = assistant(0).locator("[data-call-id]");

  await args.fill('{"id": "seven"}');
  await dialog.getByRole("button", { name: "Approve", exact: true }).click();
  const error = page.locator("#approval-error"); // hidden while empty
  await until("the refused edit's error", () => document.getElementById("approval-error").textContent !== "");
  const shown = await error.innerText();
  check(/^400: /.test(shown) && shown.includes('"id"') && shown.includes("integer"), `the error names the field: ${shown}`);
  check(await dialog.isVisible(), "the dialog stays after a refused edit");
  check(await args.inputValue() === '{"id": "seven"}', "the edit is kept for correcting");
  check(await card.getAttribute("data-status") === "running", "the call still waits");
  const pending = await page.evaluate(async (key) => {
    const r = await fetch("/v1/actions?status=pending", { headers: { Authorization: `Bearer ${key}` } });
    return (await r.json()).data.length;
  }, env.TOOLSTREAM_API_KEY);
  check(pending === 1, `the action is still pending (${pending} pending)`);
  await shot("6-edit-refused");

  // Text that is not a JSON object never leaves the page: the error shows
  // as it is typed, and Approve is off until it is fixed.
  const approveBtn = dialog.getByRole("button", { name: "Approve", exact: true });
  await args.fill('{"id": 8');
  check((await error.innerText()).startsWith("The arguments are not valid JSON"), `a local error: ${await error.innerText()}`);
  check(await approveBtn.isDisabled(), "Approve is off while the arguments are not JSON");
  await args.fill('[8]');
  check((await error.innerText()).includes("must be a JSON object"), `an array is refused: ${await error.innerText()}`);

  await args.fill('{"id": 8}');
  check(await error.textContent() === "", "no error for a valid edit");
  check((await dialog.innerText()).includes("with your edit of id"), "the dialog names the field the edit changes");
  await shot("6-edit-dialog");
  await approveBtn.click();
  await turnDone();
  check(!(await dialog.isVisible()), "the dialog closed");
  check(await card.getAttribute("data-status") === "ok", `edited card is ok, got ${await card.getAttribute("data-status")}`);
  await card.locator("summary").click();
  const body = await card.innerText();
  check(body.includes('{"deleted":8}') && body.includes("changed its arguments"), `the result of the edited call, with the note the model read: ${body}`);
  check(body.includes('"id": 8'), `the card shows the arguments that ran: ${body}`);
  check((await assistant(0).innerText()).includes("with the task you picked"), "the model heard of the edit");
  await shot("6-edited");
}

// deny: Deny (with a reason) marks the card denied and the model answers
// that.
async function deny() {
  await enterKeys();
  await ask("Please delete task 7.");
  const dialog = await approvalDialog();
  // Escape hides the dialog and decides nothing; the card brings it back.
  await page.keyboard.press("Escape");
  check(!(await dialog.isVisible()), "Escape hid the dialog");
  const card = assistant(0).locator("[data-call-id]");
  check(await card.getAttribute("data-status") === "running", "still waiting after Escape");
  // "Decide later" too; the card stays collapsed with Review in sight.
  await card.getByRole("button", { name: "Review approval" }).click();
  await dialog.getByRole("button", { name: "Decide later" }).click();
  check(!(await dialog.isVisible()), "Decide later hid the dialog");
  const review = card.getByRole("button", { name: "Review approval" });
  check(await review.isVisible(), "Review stays visible on the collapsed card");
  check(!(await card.evaluate((d) => d.open)), "the card is still collapsed");
  await shot("3-decide-later");
  await review.click();
  await dialog.waitFor({ state: "visible" });
  check(!(await card.evaluate((d) => d.open)), "Review opens the dialog without unfolding the card");
  await dialog.getByLabel("Reason, if you deny (the model reads it)").fill("not that one");
  await dialog.getByRole("button", { name: "Deny", exact: true }).click();
  await turnDone();
  check(await card.getAttribute("data-status") === "denied", `denied card, got ${await card.getAttribute("data-status")}`);
  await card.locator("summary").click();
  check((await card.innerText()).includes("DENIED"), "the error code");
  check((await assistant(0).innerText()).includes("Understood: task 7 stays on your board."), "the answer after the deny");
  await shot("3-denied");
}

// stop: Stop while a webhook holds its answer ends the turn; the cards
// still running become cancelled, and the audit log has both calls.
async function stop() {
  await enterKeys();
  await ask("Search the archive for the 2019 invoices.");
  const cards = assistant(0).locator("[data-call-id]");
  await until("two running cards", () =>
    document.querySelectorAll('[data-role="assistant"] [data-call-id][data-status="running"]').length === 2);
  await untilNode("the webhook to hold the call", async () => {
    const r = await fetch(`${env.TOOLSTREAM_HOOKS_URL}/arrivals?tool=search_archive`);
    return (await r.text()) === "1";
  });
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  const statuses = await cards.evaluateAll((els) => els.map((e) => e.dataset.status));
  check(statuses.join(",") === "cancelled,cancelled", `cards cancelled, got ${statuses}`);
  check(await page.getByRole("button", { name: "Send", exact: true }).isEnabled(), "Send is back");
  check(await page.getByRole("button", { name: "Stop", exact: true }).isDisabled(), "Stop is off");
  await shot("4-stopped");
  const [held, queued] = await cards.evaluateAll((els) => els.map((e) => e.dataset.callId));

  // The audit log, with the admin key: the call the webhook got may have
  // acted, so its outcome is unknown; the one queued behind it never ran.
  await page.getByRole("button", { name: "Audit log", exact: true }).click();
  const row = (id) => page.locator(`#audit-view tr[data-audit-call-id="${id}"]`);
  await untilNode("the audit log to record both calls as ended", async () => {
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.locator("#audit-status-line").filter({ hasNotText: "Loading" }).waitFor();
    const s = await Promise.all([held, queued].map(async (id) =>
      (await row(id).count()) ? row(id).getAttribute("data-audit-status") : ""));
    return s[0] === "outcome_unknown" && s[1] === "cancelled";
  });
  check(await page.locator("[data-call-id]").count() === 2, "[data-call-id] finds the two cards, not audit rows");
  await row(held).getByRole("button", { name: held }).click();
  const detail = page.locator(`#audit-view tr[data-audit-call-id="${held}"] + tr.audit-detail`);
  check(await detail.isVisible(), "the held call's details open under its row");
  check((await detail.innerText()).includes('"query": "2019 invoices"'), `the details show the call's arguments: ${await detail.innerText()}`);
  // Open, the details take the table's width, not the last column's.
  const [rowW, detailW] = await Promise.all([row(held), detail].map((l) => l.evaluate((e) => e.getBoundingClientRect().width)));
  const cellW = await detail.locator("td").evaluate((e) => e.getBoundingClientRect().width);
  check(cellW >= rowW - 1 && detailW >= rowW - 1, `the details span the row (${cellW}px of ${rowW}px)`);
  await shot("4-audit");

  // At 390 px the table fits: no column cut off, the details in one
  // column under the row.
  await page.setViewportSize({ width: 390, height: 760 });
  const fit = await page.evaluate(() => {
    const wrap = document.querySelector("#audit-view .table-wrap");
    const last = document.querySelector("#audit-view tr[data-audit-call-id] td:last-child");
    return { over: wrap.scrollWidth - wrap.clientWidth, right: last.getBoundingClientRect().right, width: window.innerWidth };
  });
  check(fit.over <= 0 && fit.right <= fit.width, `the audit table fits 390px: ${JSON.stringify(fit)}`);
  await shot("4-audit-narrow");
  await page.setViewportSize({ width: 1000, height: 760 });

  // Filters: only the cancelled ones.
  await page.getByLabel("Status", { exact: true }).selectOption("cancelled");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await until("the cancelled call only", (id) => {
    const rows = document.querySelectorAll("#audit-view tbody tr[data-audit-call-id]");
    return rows.length === 1 && rows[0].dataset.auditCallId === id;
  }, queued);

  // Paging by the next cursor, one call a page, newest first.
  await page.getByLabel("Status", { exact: true }).selectOption("");
  await page.getByLabel("Per page", { exact: true }).fill("1");
  const onlyRow = (id) => until(`the page holding ${id} alone`, (id) => {
    const rows = document.querySelectorAll("#audit-view tbody tr[data-audit-call-id]");
    return rows.length === 1 && rows[0].dataset.auditCallId === id;
  }, id);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await onlyRow(queued);
  await page.getByRole("button", { name: "Older", exact: true }).click();
  await onlyRow(held);
  await page.getByRole("button", { name: "Newest", exact: true }).click();
  await onlyRow(queued);

  // The tools, with their source, state and schema.
  await page.getByRole("button", { name: "Tools", exact: true }).click();
  await until("the tools list", () => document.querySelectorAll("#tools-view tbody tr").length === 3);
  const del = page.locator('#tools-view tr[data-tool="delete_task"]');
  const cells = await del.locator("td").allInnerTexts();
  check(cells[0] === "config" && cells[2] === "always", `delete_task row: ${cells}`);
  await del.locator("summary").click();
  check((await del.innerText()).includes('"type": "integer"'), "the parameters' schema");
  await shot("4-tools");
}

// markdown: with Display and Tool mode picked, the request carries them
// as headers; the cards of display: markdown arrive inside the text and
// are shown as cards, never as markup.
async function markdown() {
  await enterKeys();
  await page.getByLabel("Display", { exact: true }).selectOption("markdown");
  await page.getByLabel("Tool mode", { exact: true }).selectOption("native");
  const sent = page.waitForRequest((r) => r.url().endsWith("/v1/chat/completions"));
  await ask("What's the weather in Paris and Oslo?");
  const headers = (await sent).headers();
  check(headers["x-toolstream-display"] === "markdown" && headers["x-toolstream-mode"] === "native",
    `the request's display and mode headers: ${JSON.stringify(headers)}`);
  await turnDone();
  const msg = assistant(0);
  const statuses = await msg.locator("[data-call-id]").evaluateAll((els) => els.map((e) => e.dataset.status));
  check(statuses.join(",") === "ok,ok", `two cards from the markdown, got ${statuses}`);
  const text = await msg.innerText();
  check(!text.includes("<details") && !text.includes("</summary>"), `no card markup shown: ${text}`);
  check(text.includes("Let me look up both cities.") && text.includes("Oslo has snow at -3 °C."), "both rounds' text");
  const order = await msg.locator(".msg-body > *").evaluateAll((els) => els.map((e) => e.className));
  check(order.join(",") === "text,card,card,text", `text, cards, text in order: ${order}`);
  const second = msg.locator("[data-call-id]").nth(1);
  await second.locator("summary").click();
  const body = await second.locator(".card-body").innerText();
  check(body.includes('"city": "Oslo"') && body.includes('"sky": "snow"'), `arguments and result shown: ${body}`);
  await shot("5-markdown");
}

// longChat: after a conversation longer than the window, at 390 px as on
// a phone, the message box is still in view, pinned to the bottom, and
// the newest answer is above it, not under it.
async function longChat() {
  await page.setViewportSize({ width: 390, height: 760 });
  await enterKeys();
  for (let i = 0; i < 8; i++) {
    await ask(i % 2 ? "Thanks!" : "What's the weather in Paris and Oslo?");
    await turnDone();
  }
  const box = page.getByLabel("Message", { exact: true });
  const geo = await page.evaluate(() => {
    const r = document.getElementById("message").getBoundingClientRect();
    const msgs = document.querySelectorAll('[data-role="assistant"]');
    const last = msgs[msgs.length - 1].getBoundingClientRect();
    const composer = document.querySelector(".composer").getBoundingClientRect();
    return {
      top: r.top, bottom: r.bottom, height: window.innerHeight, scrolled: window.scrollY,
      page: document.documentElement.scrollHeight, lastBottom: last.bottom, composerTop: composer.top,
    };
  });
  check(geo.page > 2 * geo.height, `the conversation is longer than the window: ${JSON.stringify(geo)}`);
  check(geo.top >= 0 && geo.bottom <= geo.height, `the message box is in view: ${JSON.stringify(geo)}`);
  check(geo.lastBottom <= geo.composerTop + 1, `the newest answer ends above the message box: ${JSON.stringify(geo)}`);
  await shot("7-chat-390", { window: true });
  // Scrolled back to the top to read, the box stays in view.
  await page.evaluate(() => window.scrollTo(0, 0));
  const top = await box.evaluate((e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight]; });
  check(top[0] >= 0 && top[1] <= top[2], `the message box stays in view scrolled up: ${top}`);
  await box.fill("Thanks!");
  await box.press("Enter");
  await turnDone();
  check((await assistant(8).innerText()).includes("You're welcome."), "a turn sent from the pinned box");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 0, `no sideways scrolling at 390px (${overflow}px too wide)`);
}

// keys: a runtime key created in the Keys view (its secret shown once),
// narrowed to one tool, used for a turn (the other tool is not found for
// it), its usage read from the chart, then revoked: its next turn is 401.
async function keys() {
  await enterKeys();
  await page.getByRole("button", { name: "Keys", exact: true }).click();
  await until("the keys list", () => document.querySelectorAll("#keys-view tbody tr").length === 1);
  const configRow = page.locator('#keys-view tr[data-source="config"]');
  check(await configRow.getByRole("button").count() === 0, "a config key has no Change or Revoke");

  const form = page.locator("#key-form");
  await form.getByLabel("Name", { exact: true }).fill("alice");
  await form.getByLabel("Tools", { exact: true }).fill("get_weather, delete_task");
  await form.getByLabel("Requests per minute", { exact: true }).fill("30");
  await page.getByRole("button", { name: "Create key", exact: true }).click();
  const secretBox = page.locator("#key-secret");
  await secretBox.waitFor({ state: "visible" });
  const secret = await page.getByLabel("New key", { exact: true }).inputValue();
  check(/^sk-/.test(secret), `the new key is shown: ${secret.slice(0, 6)}…`);
  check((await secretBox.innerText()).includes("shown this once"), "the page says the key is shown once");
  await secretBox.getByRole("button", { name: "Copy", exact: true }).click();
  await until("Copy to say what it did", () => /Copied|Selected/.test(document.getElementById("key-copy-note").textContent));
  const alice = page.locator('#keys-view tr[data-key="alice"]');
  await alice.waitFor();
  check((await alice.locator("td.scope").nth(1).innerText()) === "get_weather, delete_task", "alice's tools");
  check((await alice.innerText()).includes("30 requests/min"), "alice's limit");
  await shot("8-keys-created");

  // Narrow, with a typo first: the change is made, and the proxy's
  // warning, with the name meant, is shown.
  await alice.getByRole("button", { name: "Change alice" }).click();
  check(await form.getByLabel("Name", { exact: true }).isDisabled(), "the name of a key being changed is fixed");
  await form.getByLabel("Tools", { exact: true }).fill("get_weather, delete_tsak");
  await page.getByRole("button", { name: "Save changes", exact: true }).click();
  const warning = page.locator("#key-warnings li");
  await warning.waitFor();
  const wtext = await warning.innerText();
  check(wtext.includes("delete_tsak") && wtext.includes('did you mean "delete_task"'), `the warning names the tool meant: ${wtext}`);
  check((await page.locator("#key-warnings").innerText()).startsWith("alice was changed, but check:"), "the warning says which key");
  await shot("8-keys-warning");
  // Narrow: only get_weather.
  await alice.getByRole("button", { name: "Change alice" }).click();
  check(await page.locator("#key-warnings").isHidden(), "the warning goes with the next change");
  await form.getByLabel("Tools", { exact: true }).fill("get_weather");
  await page.getByRole("button", { name: "Save changes", exact: true }).click();
  await until("alice narrowed", () =>
    document.querySelector('#keys-view tr[data-key="alice"] td.scope.tools')?.textContent === "get_weather");
  check(await secretBox.isHidden(), "the secret is not shown again");

  // Use it: the weather runs; delete_task does not exist for alice.
  await page.getByRole("button", { name: "Chat", exact: true }).click();
  await page.getByLabel("API key", { exact: true }).fill(secret);
  await ask("What's the weather in Paris and Oslo?");
  await turnDone();
  await ask("Please delete task 7.");
  await turnDone();
  const del = assistant(1).locator("[data-call-id]");
  check(await del.getAttribute("data-status") === "error", `delete_task is not alice's: ${await del.getAttribute("data-status")}`);
  await del.locator("summary").click();
  check((await del.innerText()).includes("TOOL_NOT_FOUND"), "TOOL_NOT_FOUND, as if it did not exist");

  // Its usage: today's bar counts both turns.
  await page.getByRole("button", { name: "Keys", exact: true }).click();
  const today = new Date().toISOString().slice(0, 10);
  await untilNode("alice's usage for today", async () => {
    await page.getByRole("button", { name: "Load keys", exact: true }).click();
    await page.locator("#keys-status").filter({ hasNotText: "Loading" }).waitFor();
    const bar = alice.locator(`svg rect[data-day="${today}"]`);
    return (await bar.count()) === 1 && Number(await bar.getAttribute("data-requests")) === 2;
  });
  const totals = await alice.locator(".usage-total").innerText();
  check(/^2 requests · 3 tool calls · \d+ tokens \(0 cached\)$/.test(totals), `alice's usage summed: ${totals}`);
  check(/Requests per day/.test(await alice.locator("svg").getAttribute("aria-label")), "the chart says what it shows");
  await shot("8-keys-usage");
  // At 390 px the table scrolls inside its box; the page does not.
  await page.setViewportSize({ width: 390, height: 760 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(wide <= 0, `no sideways scrolling of the Keys view at 390px (${wide}px too wide)`);
  await shot("8-keys-390");
  await page.setViewportSize({ width: 1000, height: 760 });

  // Revoke: gone from the list; its next turn is 401.
  page.once("dialog", (d) => d.accept());
  await alice.getByRole("button", { name: "Revoke alice" }).click();
  await alice.waitFor({ state: "detached" });
  check((await page.locator("#keys-status").innerText()).startsWith("alice is revoked."), "the page says it is revoked");
  await page.getByRole("button", { name: "Chat", exact: true }).click();
  await ask("Thanks!");
  await until("the refusal", () => document.querySelectorAll('[data-role="assistant"]').length === 3 &&
    document.querySelector(".msg.streaming") === null);
  const refused = await assistant(2).innerText();
  check(refused.includes("401"), `the revoked key gets 401: ${refused}`);
  check(await page.getByLabel("Message", { exact: true }).inputValue() === "Thanks!", "the refused message is given back");
}

// live: a turn held in its first round shows in the Live view (key,
// model, route, round); its call waits for approval there, and Review
// opens the dialog, whose Approve with an edit (with the admin key) lets
// it run with the edit. The chat that started it (another tab) sees its
// card turn ok, with the edited arguments.
async function live() {
  await enterKeys();
  const admin = await context.newPage();
  admin.on("pageerror", (e) => problems.push(`page error (admin tab): ${e.message}`));
  await admin.goto(base + "/");
  await admin.getByLabel("Admin key", { exact: true }).fill(env.TOOLSTREAM_ADMIN_KEY);
  await admin.getByRole("button", { name: "Live", exact: true }).click();
  await admin.locator("#live-status").filter({ hasText: "No turns in progress." }).waitFor();

  await ask("Please delete task 7, slowly.");
  const row = admin.locator("#live-view tr[data-live-id]");
  await row.waitFor();
  const cells = await row.locator("td").allInnerTexts();
  check(cells[2] === "scripted-model" && cells[3] === "chat" && cells[4] === "1", `the turn's model, route and round: ${cells}`);
  check(/^key_[0-9a-f]{12}$/.test(cells[1]), `the turn's key, by name: ${cells[1]}`);
  check(cells[5] === "model answering", `no call yet: ${cells[5]}`);
  await shot("9-live-running", { of: admin });
  await fetch(`${env.TOOLSTREAM_HOOKS_URL}/pace`, { method: "POST" });

  // The call waits: decided from the Live view.
  const call = row.locator('li[data-live-status="waiting_approval"]');
  await call.waitFor();
  check((await call.innerText()).includes("delete_task"), "the waiting call's tool");
  await shot("9-live-waiting", { of: admin });
  await call.getByRole("button", { name: /^Review delete_task/ }).click();
  const dialog = admin.getByRole("dialog");
  await dialog.waitFor({ state: "visible" });
  check((await dialog.getByLabel(/^Arguments/).inputValue()).includes('"id": 7'), "the dialog shows the waiting call's arguments");
  // Approved with an edit, as from the chat.
  await dialog.getByLabel(/^Arguments/).fill('{"id": 9}');
  await shot("9-live-dialog", { of: admin });
  await dialog.getByRole("button", { name: "Approve", exact: true }).click();
  await dialog.waitFor({ state: "hidden" });

  // The chat's card runs; the turn leaves the Live view when it ends.
  await turnDone();
  const card = assistant(0).locator("[data-call-id]");
  check(await card.getAttribute("data-status") === "ok", `the approved call ran: ${await card.getAttribute("data-status")}`);
  check((await assistant(0).innerText()).includes("with the task you picked"), "the model heard of the edit");
  await card.locator("summary").click();
  check((await card.innerText()).includes('"id": 9'), `the chat's card shows the arguments that ran: ${await card.innerText()}`);
  await row.waitFor({ state: "detached" });
  check(await admin.locator("#live-status").innerText() === "No turns in progress.", "the Live view is empty again");

  // A call decided elsewhere (here in its own chat) closes the Live
  // view's dialog for it.
  await ask("Please delete task 7.");
  await admin.getByRole("button", { name: /^Review delete_task/ }).click();
  await dialog.waitFor({ state: "visible" });
  const own = page.getByRole("dialog");
  await own.waitFor({ state: "visible" });
  await own.getByRole("button", { name: "Approve", exact: true }).click();
  await turnDone();
  await dialog.waitFor({ state: "hidden" });
  // Leaving the view closes its stream.
  await admin.getByRole("button", { name: "Chat", exact: true }).click();
  await admin.close();
}

// sentence: in text mode a call's event can come a few words after the
// call; its card goes where the sentence ends, not inside it.
async function sentence() {
  await enterKeys();
  await page.getByLabel("Tool mode", { exact: true }).selectOption("text");
  await ask("Wave at me");
  await turnDone();
  const parts = await assistant(0).locator(".msg-body > *").evaluateAll((els) =>
    els.map((e) => (e.dataset.callId ? `[${e.dataset.status}]` : e.textContent)));
  check(parts[0] === "Hi there! It's good to see you." && parts[1] === "[ok]", `the card after the sentence: ${JSON.stringify(parts)}`);
  await shot("10-sentence");
}

// --- helpers ---

async function enterKeys() {
  await page.getByLabel("API key", { exact: true }).fill(env.TOOLSTREAM_API_KEY);
  await page.getByLabel("Admin key", { exact: true }).fill(env.TOOLSTREAM_ADMIN_KEY);
  // The keys survive a reload of the tab; the models list loads with them.
  await page.reload();
  check(await page.getByLabel("API key", { exact: true }).inputValue() === env.TOOLSTREAM_API_KEY, "API key kept");
  await page.locator('#models option[value="scripted-model"]').waitFor({ state: "attached" });
  check(await page.getByLabel("Model", { exact: true }).inputValue() === "scripted-model", "the listed model is picked");
}

async function ask(text) {
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(text);
  await box.press("Enter");
}

// turnDone waits until Send is usable again: the stream ended.
async function turnDone() {
  await until("the turn to end", () => !document.getElementById("send").disabled &&
    document.querySelector(".msg.streaming") === null);
  const errors = await page.locator('[data-role="assistant"] .error').allInnerTexts();
  check(errors.length === 0, `no error in the message: ${errors}`);
}

async function approvalDialog() {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor({ state: "visible" });
  const text = await dialog.innerText();
  check(text.includes("delete_task"), "the dialog names the tool");
  const args = await dialog.getByLabel(/^Arguments/).inputValue();
  check(args.includes('"id": 7'), `the dialog shows the arguments: ${args}`);
  return dialog;
}

function assistant(i) {
  return page.locator('[data-role="assistant"]').nth(i);
}

function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function until(what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: 15000 });
  } catch {
    throw new Error(`timed out waiting for ${what}`);
  }
}

async function untilNode(what, fn) {
  const deadline = Date.now() + 15000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// shot saves the whole page, or with window set only what the window
// shows (where what is pinned is the point).
async function shot(name, { window = false, of = page } = {}) {
  const file = path.join(env.TOOLSTREAM_ARTIFACTS, `${name}.png`);
  await of.screenshot({ path: file, fullPage: !window });
  console.log(`screenshot ${file}`);
}
