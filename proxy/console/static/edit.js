// The approval dialog's argument edit, checked before anything is sent:
// the text must be a JSON object (a tool's arguments always are), and an
// edit that changes nothing is no edit (the approval then sends no body,
// and the call runs with the model's arguments as they were).

// argsText shows arguments for editing: indented JSON.
export function argsText(args) {
  return JSON.stringify(args, null, 2);
}

// checkEdit reads the dialog's text against the arguments shown. It
// returns {edit} — the object to send, or undefined when nothing changed
// — or {error}, a sentence fit to show under the field.
export function checkEdit(text, original) {
  if (original === undefined) return { edit: undefined };
  const t = text.trim();
  if (t === argsText(original)) return { edit: undefined };
  let v;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return { error: `The arguments are not valid JSON: ${e.message}` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return { error: "The arguments must be a JSON object, like {\"id\": 8}." };
  }
  if (sameJSON(v, original)) return { edit: undefined };
  return { edit: v, changed: changedKeys(original, v) };
}

// changedKeys names the top-level fields an edit added, removed or
// changed, sorted: what the dialog and the card say was edited.
export function changedKeys(before, after) {
  const b = before && typeof before === "object" ? before : {};
  const keys = new Set([...Object.keys(b), ...Object.keys(after)]);
  return [...keys].filter((k) => !sameJSON(b[k], after[k])).sort();
}

// sameJSON compares two JSON values whatever their objects' key order.
export function sameJSON(a, b) {
  return canonical(a) === canonical(b);
}

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}
