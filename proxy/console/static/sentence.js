// Where a tool card may go in streamed text: between sentences, never
// inside one. The stream puts a call's event where the model wrote the
// call, which a model may do mid-sentence; such a card waits for the
// sentence to end.

// A sentence ends at . ! ? … : or ; (and any closing quote or bracket)
// followed by white space, or at a line break.
const endRe = /[.!?…:;][)"'”’»\]]*(?=\s)|\n/g;

// endsSentence says whether a card may follow text at once: the text is
// empty, or its last sentence is finished.
export function endsSentence(text) {
  const t = text.trimEnd();
  return t === "" || /[.!?…:;][)"'”’»\]]*$/.test(t) || /\n[ \t]*$/.test(text);
}

// sentenceEnd is the index just after the first sentence end in text at
// or after from, or -1 while the sentence goes on.
export function sentenceEnd(text, from = 0) {
  endRe.lastIndex = Math.max(0, from);
  const m = endRe.exec(text);
  return m ? m.index + m[0].length : -1;
}
