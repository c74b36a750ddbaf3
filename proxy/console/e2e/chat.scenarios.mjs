// The chat's scenarios: tool cards, approvals (with edits), deny, Stop
// (then the audit log and the tools list), the markdown display, a long
// conversation at 390 px, a card written mid-sentence.

import { env, page, assistant, ask, approvalDialog, check, enterKeys, shot, turnDone, until, untilNode } from "./harness.mjs";

// twoTools: two calls in one round show two cards in the one assistant
// message, between the text of the first round and the second.
export async function twoTools() {
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
export async function approve() {
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
export async function edit() {
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
export async function deny() {
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
export async function stop() {
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
export async function markdown() {
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
export async function longChat() {
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

// sentence: the card goes where the model wrote its call, between its
// sentences ("Hi there! [smile] It's good to see you. …"), even where the
// words after the call reach the proxy in the piece that closed it.
export async function sentence() {
  await enterKeys();
  await page.getByLabel("Tool mode", { exact: true }).selectOption("text");
  await ask("Wave at me");
  await turnDone();
  const parts = await assistant(0).locator(".msg-body > *").evaluateAll((els) =>
    els.map((e) => (e.dataset.callId ? `[${e.dataset.status}]` : e.textContent.trim())));
  check(parts[0] === "Hi there!" && parts[1] === "[ok]" && parts[2]?.startsWith("It's good to see you."),
    `the card where the call was written: ${JSON.stringify(parts)}`);
  await shot("10-sentence");
}
