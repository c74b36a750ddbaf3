// The Live view's state, from GET /admin/live's events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseLive, reduce, ordered, waiting, summary } from "../static/livestate.js";

const t1 = { id: "live_1", key: "alice", model: "m", route: "chat", round: 1, started_at: "2026-11-29T08:00:00Z", calls: [] };
const t2 = { id: "live_2", key: "bob", model: "m", route: "responses", round: 2, started_at: "2026-11-29T07:59:00Z", calls: [] };
const waitingCall = { call_id: "call_1", tool: "delete_task", status: "waiting_approval", action_id: "act_1", arguments: { id: 7 } };

test("parseLive: objects with a type only", () => {
  assert.deepEqual(parseLive('{"type":"snapshot","turns":[]}'), { type: "snapshot", turns: [] });
  for (const d of ["", "[]", "null", '{"turns":[]}', "{", '"snapshot"']) assert.equal(parseLive(d), null, d);
});

const steps = [
  { name: "snapshot sets every turn", ev: { type: "snapshot", turns: [t1, t2] }, want: ["live_2", "live_1"] },
  { name: "turn.started adds", ev: { type: "turn.started", turn: { ...t1, id: "live_3", started_at: "2026-11-29T08:01:00Z" } }, want: ["live_2", "live_1", "live_3"] },
  { name: "approval.waiting replaces the turn as it stands", ev: { type: "approval.waiting", turn: { ...t1, calls: [waitingCall] }, call_id: "call_1" }, want: ["live_2", "live_1", "live_3"], waits: 1 },
  { name: "an unknown type with a turn sets it too", ev: { type: "call.progress", turn: { ...t2, round: 3 } }, want: ["live_2", "live_1", "live_3"], waits: 1 },
  { name: "an event without a turn changes nothing", ev: { type: "call.finished" }, want: ["live_2", "live_1", "live_3"], waits: 1 },
  { name: "turn.ended removes", ev: { type: "turn.ended", turn: { id: "live_1" } }, want: ["live_2", "live_3"], waits: 0 },
  { name: "a fresh snapshot replaces all (a reader that fell behind)", ev: { type: "snapshot", turns: [t2] }, want: ["live_2"] },
  { name: "an empty snapshot", ev: { type: "snapshot" }, want: [] },
];

test("reduce: a stream of events, step by step", () => {
  let s = new Map();
  for (const st of steps) {
    const before = s;
    const copy = new Map(before);
    s = reduce(s, st.ev);
    assert.deepEqual(ordered(s).map((t) => t.id), st.want, st.name);
    if (st.waits !== undefined) assert.equal([...s.values()].reduce((n, t) => n + waiting(t).length, 0), st.waits, st.name);
    assert.deepEqual(before, copy, `${st.name}: the old state is left as it was`);
  }
});

test("reduce: null (an unreadable event) keeps the state", () => {
  const s = new Map([["x", t1]]);
  assert.equal(reduce(s, null), s);
});

test("waiting: only calls with an action to decide", () => {
  const t = { calls: [waitingCall, { call_id: "c2", status: "running" }, { call_id: "c3", status: "waiting_approval" }] };
  assert.deepEqual(waiting(t).map((c) => c.call_id), ["call_1"]);
  assert.deepEqual(waiting({}), []);
});

test("summary", () => {
  assert.equal(summary(new Map()), "No turns in progress.");
  assert.equal(summary(new Map([["a", t1]])), "1 turn in progress.");
  assert.equal(summary(new Map([["a", { ...t1, calls: [waitingCall] }], ["b", t2]])), "2 turns in progress; 1 call waits for a decision.");
});
