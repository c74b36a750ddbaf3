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

import { launch, page, browser, problems, shot } from "./harness.mjs";
import { twoTools, approve, edit, deny, stop, markdown, longChat, sentence } from "./chat.scenarios.mjs";
import { keys, live } from "./admin.scenarios.mjs";

const scenario = process.argv[2];
const scenarios = { "two-tools": twoTools, approve, edit, deny, stop, markdown, long: longChat, keys, live, sentence };
if (!scenarios[scenario]) {
  console.error(`unknown scenario ${scenario}; one of ${Object.keys(scenarios).join(", ")}`);
  process.exit(2);
}

// The errors a scenario provokes on purpose: (edit) the approval the
// server refuses, (keys) the revoked key's turn.
const expected = {
  edit: (text, url) => /status of 400/.test(text) && url.endsWith("/approve"),
  keys: (text, url) => /status of 401/.test(text) && url.endsWith("/v1/chat/completions"),
}[scenario];
await launch(expected);

let failed = false;
try {
  await page.goto(process.env.TOOLSTREAM_CONSOLE_URL + "/");
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
