// The approval dialog's argument edit, checked before it is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { argsText, checkEdit, changedKeys, sameJSON } from "../static/edit.js";

const model = { id: 7, note: "old" };

const cases = [
  { name: "unchanged text is no edit", text: argsText(model), want: { edit: undefined } },
  { name: "reformatted but equal is no edit", text: '{"note":"old","id":7}', want: { edit: undefined } },
  { name: "a changed value", text: '{"id": 8, "note": "old"}', want: { edit: { id: 8, note: "old" }, changed: ["id"] } },
  { name: "a removed and an added field", text: '{"id": 7, "force": true}', want: { edit: { id: 7, force: true }, changed: ["force", "note"] } },
  { name: "surrounding white space", text: '\n  {"id": 9, "note": "old"}  \n', want: { edit: { id: 9, note: "old" }, changed: ["id"] } },
];
for (const c of cases) {
  test(`checkEdit: ${c.name}`, () => assert.deepEqual(checkEdit(c.text, model), c.want));
}

const refused = [
  { name: "not JSON", text: '{"id": 8', re: /^The arguments are not valid JSON: / },
  { name: "an array", text: "[8]", re: /must be a JSON object/ },
  { name: "a number", text: "8", re: /must be a JSON object/ },
  { name: "null", text: "null", re: /must be a JSON object/ },
  { name: "a string", text: '"{\\"id\\":8}"', re: /must be a JSON object/ },
  { name: "empty", text: "  ", re: /not valid JSON/ },
];
for (const c of refused) {
  test(`checkEdit refuses ${c.name}`, () => {
    const r = checkEdit(c.text, model);
    assert.equal(r.edit, undefined);
    assert.match(r.error, c.re);
  });
}

test("checkEdit: arguments not shown (redacted whole) are never an edit", () => {
  assert.deepEqual(checkEdit("(not shown)", undefined), { edit: undefined });
});

test("sameJSON ignores key order at every depth, not array order", () => {
  assert.ok(sameJSON({ a: { x: 1, y: [1, 2] }, b: 2 }, { b: 2, a: { y: [1, 2], x: 1 } }));
  assert.ok(!sameJSON({ a: [1, 2] }, { a: [2, 1] }));
  assert.ok(!sameJSON({ a: 1 }, { a: "1" }));
  assert.ok(!sameJSON({ a: null }, {}));
});

test("changedKeys against arguments that were not an object", () => {
  assert.deepEqual(changedKeys("raw text", { q: 1 }), ["q"]);
});
