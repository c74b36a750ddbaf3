// The usage chart's days and scale.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lastDays, series, niceMax, bars, total } from "../static/chart.js";

test("lastDays: UTC days ending today, across a month's end", () => {
  assert.deepEqual(lastDays(3, new Date("2026-12-01T23:30:00Z")), ["2026-11-29", "2026-11-30", "2026-12-01"]);
  assert.deepEqual(lastDays(1, new Date("2026-12-01T00:00:00Z")), ["2026-12-01"]);
});

test("series: one key's rows, zeros for days without use", () => {
  const rows = [
    { key: "alice", day: "2026-11-28", requests: 3, prompt_tokens: 10, completion_tokens: 2, cached_tokens: 0, tool_calls: 1 },
    { key: "bob", day: "2026-11-29", requests: 9 },
    { key: "alice", day: "2026-11-30", requests: 1 },
  ];
  const s = series(rows, "alice", ["2026-11-28", "2026-11-29", "2026-11-30"]);
  assert.deepEqual(s.map((r) => [r.day, r.requests]), [["2026-11-28", 3], ["2026-11-29", 0], ["2026-11-30", 1]]);
  assert.equal(s[1].tool_calls, 0);
  assert.equal(total(s, "requests"), 4);
});

const nice = [[0, 1], [-3, 1], [NaN, 1], [1, 1], [3, 5], [7, 10], [10, 10], [11, 20], [0.3, 0.5], [450, 500], [2001, 5000]];
for (const [v, want] of nice) {
  test(`niceMax(${v}) = ${want}`, () => assert.equal(niceMax(v), want));
}

test("bars: heights in proportion to the scale, small days still show, left to right", () => {
  const rows = [{ day: "a", requests: 0 }, { day: "b", requests: 1 }, { day: "c", requests: 200 }, { day: "d", requests: 100 }];
  const { max, bars: bs } = bars(rows, "requests", { width: 43, height: 40, gap: 1 });
  assert.equal(max, 200);
  assert.deepEqual(bs.map((b) => b.h), [0, 1, 40, 20]); // 1 of 200 would be 0.2 units: shown as 1
  assert.deepEqual(bs.map((b) => b.y), [40, 39, 0, 20]);
  assert.deepEqual(bs.map((b) => b.x), [0, 11, 22, 33]);
  assert.ok(bs.every((b) => b.w === 10));
  assert.ok(bs.every((b) => b.x + b.w <= 43 && b.y >= 0 && b.y + b.h <= 40), "inside the box");
});

test("bars: no usage at all is flat, not a division by zero", () => {
  const { max, bars: bs } = bars([{ day: "a", requests: 0 }], "requests");
  assert.equal(max, 1);
  assert.deepEqual([bs[0].h, bs[0].y], [0, 32]);
  assert.deepEqual(bars([], "requests").bars, []);
});
