// The browser test's harness: the browser, the page and the helpers every
// scenario uses (console.e2e.mjs runs one scenario; chat.scenarios.mjs
// and admin.scenarios.mjs hold them).

import { createRequire } from "node:module";
import path from "node:path";

export const env = process.env;
export const base = env.TOOLSTREAM_CONSOLE_URL;
const require = createRequire(import.meta.url);

// Anything the page logs as an error fails the run: a Content-Security-
// Policy violation, a module that did not load, an uncaught exception.
export const problems = [];
export let browser, context, page;

// launch starts Chromium with one page. expected says which errors the
// scenario provokes on purpose: the browser logs every refused request.
export async function launch(expected = () => false) {
  const { chromium } = require(path.join(env.TOOLSTREAM_PLAYWRIGHT_MODULES, "playwright-core"));
  browser = await chromium.launch({ executablePath: env.TOOLSTREAM_CHROMIUM, headless: true });
  context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    // The models list asked for before a key was entered.
    if (/status of 401/.test(m.text()) && m.location().url.endsWith("/v1/models")) return;
    if (expected(m.text(), m.location().url)) return;
    problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
}

export async function enterKeys() {
  await page.getByLabel("API key", { exact: true }).fill(env.TOOLSTREAM_API_KEY);
  await page.getByLabel("Admin key", { exact: true }).fill(env.TOOLSTREAM_ADMIN_KEY);
  // The keys survive a reload of the tab; the models list loads with them.
  await page.reload();
  check(await page.getByLabel("API key", { exact: true }).inputValue() === env.TOOLSTREAM_API_KEY, "API key kept");
  await page.locator('#models option[value="scripted-model"]').waitFor({ state: "attached" });
  check(await page.getByLabel("Model", { exact: true }).inputValue() === "scripted-model", "the listed model is picked");
}

export async function ask(text) {
  const box = page.getByLabel("Message", { exact: true });
  await box.fill(text);
  await box.press("Enter");
}

// turnDone waits until Send is usable again: the stream ended.
export async function turnDone() {
  await until("the turn to end", () => !document.getElementById("send").disabled &&
    document.querySelector(".msg.streaming") === null);
  const errors = await page.locator('[data-role="assistant"] .error').allInnerTexts();
  check(errors.length === 0, `no error in the message: ${errors}`);
}

export async function approvalDialog() {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor({ state: "visible" });
  const text = await dialog.innerText();
  check(text.includes("delete_task"), "the dialog names the tool");
  const args = await dialog.getByLabel(/^Arguments/).inputValue();
  check(args.includes('"id": 7'), `the dialog shows the arguments: ${args}`);
  return dialog;
}

export function assistant(i) {
  return page.locator('[data-role="assistant"]').nth(i);
}

export function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
}

export async function until(what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: 15000 });
  } catch {
    throw new Error(`timed out waiting for ${what}`);
  }
}

export async function untilNode(what, fn) {
  const deadline = Date.now() + 15000;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// shot saves the whole page, or with window set only what the window
// shows (where what is pinned is the point).
export async function shot(name, { window = false, of = page } = {}) {
  const file = path.join(env.TOOLSTREAM_ARTIFACTS, `${name}.png`);
  await of.screenshot({ path: file, fullPage: !window });
  console.log(`screenshot ${file}`);
}
