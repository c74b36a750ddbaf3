// The Keys view's form, read before it is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseList, listText, limitText, keyBody, warningText, localInput } from "../static/keyform.js";

const lists = [
  ["", null], ["  ", null], ["a", ["a"]], ["a, b", ["a", "b"]], ["a b,,c\nd", ["a", "b", "c", "d"]], ["a, a", ["a"]],
];
for (const [text, want] of lists) {
  test(`parseList(${JSON.stringify(text)})`, () => assert.deepEqual(parseList(text), want));
}

test("listText and limitText", () => {
  assert.equal(listText(null), "all");
  assert.equal(listText([]), "none");
  assert.equal(listText(["a", "b"]), "a, b");
  assert.equal(limitText(null), "none");
  assert.equal(limitText({ requests_per_minute: 30, tokens_per_minute: 0, concurrent_turns: 2 }), "30 requests/min, 2 turns at once");
});

const now = Date.parse("2026-11-29T08:00:00Z");
const bodies = [
  {
    name: "create with scopes and a limit",
    f: { name: "alice", models: "", tools: "read_tasks, create_task", requests_per_minute: "30" },
    opts: { create: true, now },
    want: { body: { name: "alice", models: null, tools: ["read_tasks", "create_task"], limits: { requests_per_minute: 30, tokens_per_minute: 0, concurrent_turns: 0 } } },
  },
  {
    name: "create with an expiry",
    f: { name: "ci", expires_at: "2027-01-01T00:00:00Z" },
    opts: { create: true, now },
    want: { body: { name: "ci", models: null, tools: null, limits: { requests_per_minute: 0, tokens_per_minute: 0, concurrent_turns: 0 }, expires_at: "2027-01-01T00:00:00.000Z" } },
  },
  {
    name: "patch: no name, no expiry is null (never)",
    f: { tools: "read_tasks", concurrent_turns: "1" },
    opts: { now },
    want: { body: { models: null, tools: ["read_tasks"], limits: { requests_per_minute: 0, tokens_per_minute: 0, concurrent_turns: 1 }, expires_at: null } },
  },
];
for (const c of bodies) {
  test(`keyBody: ${c.name}`, () => assert.deepEqual(keyBody(c.f, c.opts), c.want));
}

const refused = [
  [{ name: "" }, /a name/],
  [{ name: "al ice" }, /letters, digits/],
  [{ name: "key_abc" }, /may not start with key_/],
  [{ name: "a", requests_per_minute: "-1" }, /requests per minute must be a whole number/],
  [{ name: "a", tokens_per_minute: "1.5" }, /tokens per minute/],
  [{ name: "a", concurrent_turns: "two" }, /concurrent turns/],
  [{ name: "a", expires_at: "soon" }, /not a date/],
  [{ name: "a", expires_at: "2020-01-01T00:00" }, /in the future/],
];
for (const [f, re] of refused) {
  test(`keyBody refuses ${JSON.stringify(f)}`, () => assert.match(keyBody(f, { create: true, now }).error, re));
}

test("warningText reads strings and objects", () => {
  assert.equal(warningText("tools: unknown tool x"), "tools: unknown tool x");
  assert.equal(warningText({ message: "m", field: "tools" }), "m");
  assert.equal(warningText({ field: "tools" }), '{"field":"tools"}');
});

test("localInput round-trips through keyBody", () => {
  const iso = "2027-03-04T05:06:00.000Z";
  assert.equal(keyBody({ expires_at: localInput(iso) }, { now }).body.expires_at, iso);
  assert.equal(localInput(null), "");
});
