// The event-stream parser, fed the way networks cut streams.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SSEParser, events } from "../static/sse.js";

const cases = [
  { name: "one data event", in: ["data: {\"a\":1}\n\n"], want: [{ event: "", data: "{\"a\":1}", id: undefined }] },
  { name: "data lines join with LF", in: ["data: a\ndata: b\n\n"], want: [{ event: "", data: "a\nb", id: undefined }] },
  { name: "CRLF and CR end lines", in: ["data: a\r\n\r\ndata: b\r\r: more"], want: [{ event: "", data: "a", id: undefined }, { event: "", data: "b", id: undefined }] },
  { name: "CRLF split across reads", in: ["data: a\r", "\n\r", "\n"], want: [{ event: "", data: "a", id: undefined }] },
  { name: "comments and unknown fields skipped", in: [": keepalive\n\nretry: 5\nfoo: x\ndata: d\n\n"], want: [{ event: "", data: "d", id: undefined }] },
  { name: "named event with id", in: ["event: turn.started\nid: 7\ndata: {}\n\n"], want: [{ event: "turn.started", data: "{}", id: "7" }] },
  { name: "event name does not leak to the next", in: ["event: snapshot\ndata: 1\n\ndata: 2\n\n"], want: [{ event: "snapshot", data: "1", id: undefined }, { event: "", data: "2", id: undefined }] },
  { name: "one space after the colon is dropped, not two", in: ["data:  x\ndata:y\n\n"], want: [{ event: "", data: " x\ny", id: undefined }] },
  { name: "a field without colon is empty data", in: ["data\n\n"], want: [{ event: "", data: "", id: undefined }] },
  { name: "no data, no event", in: ["event: x\n\n"], want: [] },
  { name: "cut mid-event: nothing yet", in: ["data: {\"a\"", ":1}"], want: [] },
  { name: "byte by byte", in: [..."data: hé\n\n"], want: [{ event: "", data: "hé", id: undefined }] },
];

for (const c of cases) {
  test(`SSEParser: ${c.name}`, () => {
    const p = new SSEParser();
    const got = c.in.flatMap((piece) => p.push(piece));
    assert.deepEqual(got, c.want);
  });
}

// A stream of bytes cut inside a UTF-8 character and inside a line; the
// event the stream's end cuts off is dropped.
test("events: from a byte stream, the unfinished last event dropped", async () => {
  const bytes = new TextEncoder().encode("data: é1\n\nevent: e\ndata: ü2\n\ndata: cut");
  const body = new ReadableStream({
    start(ctrl) {
      for (let i = 0; i < bytes.length; i += 3) ctrl.enqueue(bytes.slice(i, i + 3));
      ctrl.close();
    },
  });
  const got = [];
  for await (const ev of events(body)) got.push([ev.event, ev.data]);
  assert.deepEqual(got, [["", "é1"], ["e", "ü2"]]);
});
