// The admin views' scenarios: a runtime key through the Keys view, a
// turn and its waiting call in the Live view.

import { env, base, context, page, problems, assistant, ask, check, enterKeys, shot, turnDone, until, untilNode } from "./harness.mjs";

// keys: a runtime key created in the Keys view (its secret shown once),
// narrowed to one tool, used for a turn (the other tool is not found for
// it), its usage read from the chart, then revoked: its next turn is 401.
export async function keys() {
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
export async function live() {
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
