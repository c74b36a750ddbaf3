// Where a card may go in streamed text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { endsSentence, sentenceEnd } from "../static/sentence.js";

const ends = [
  ["", true], ["  ", true], ["Hi there! ", true], ["Done.", true], ["Here it is:", true],
  ["He said “yes.” ", true], ["(see below.)", true], ["line\n", true],
  ["Hi there! It's", false], ["version 3", false], ["e.g", false],
];
for (const [text, want] of ends) {
  test(`endsSentence(${JSON.stringify(text)}) = ${want}`, () => assert.equal(endsSentence(text), want));
}

const at = [
  { text: "It's good to see you. Bye", from: 0, want: "It's good to see you.".length },
  { text: "Hi there! It's good", from: 10, want: -1 },
  { text: "Hi there! It's good. x", from: 10, want: "Hi there! It's good.".length },
  { text: "Version 3.5 is out! Yes", from: 0, want: "Version 3.5 is out!".length },
  { text: "no end yet.", from: 0, want: -1 }, // the period may be 3.5's
  { text: "a list\n- b", from: 0, want: "a list\n".length },
  { text: "She said “done.” Then", from: 0, want: "She said “done.”".length },
];
for (const c of at) {
  test(`sentenceEnd(${JSON.stringify(c.text)}, ${c.from})`, () => assert.equal(sentenceEnd(c.text, c.from), c.want));
}

test("sentenceEnd is the same called twice (no state kept between calls)", () => {
  assert.equal(sentenceEnd("A. B. C", 0), 2);
  assert.equal(sentenceEnd("A. B. C", 0), 2);
  assert.equal(sentenceEnd("A. B. C", 3), 5);
});
