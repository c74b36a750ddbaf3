// The Keys view's form, read and checked before it is sent: what
// POST /admin/keys and PATCH /admin/keys/{name} take (docs/keys.md).
// Nothing here touches the page.

// nameRe is what a runtime key's name may be: letters, digits, _ - .,
// not starting with key_ (plain entries' names).
const nameRe = /^[A-Za-z0-9_.-]+$/;

// parseList reads a list typed as names split by commas or white space:
// empty means every one (null, as the API says "all"), a name given twice
// counts once.
export function parseList(text) {
  const names = (text ?? "").split(/[\s,]+/).filter(Boolean);
  return names.length ? [...new Set(names)] : null;
}

// listText shows a scope: "all" for null, the names otherwise.
export function listText(list) {
  return list == null ? "all" : list.length ? list.join(", ") : "none";
}

// limitText shows a key's limits, or "none".
export function limitText(limits) {
  const l = limits ?? {};
  const parts = [];
  if (l.requests_per_minute) parts.push(`${l.requests_per_minute} requests/min`);
  if (l.tokens_per_minute) parts.push(`${l.tokens_per_minute} tokens/min`);
  if (l.concurrent_turns) parts.push(`${l.concurrent_turns} turns at once`);
  return parts.length ? parts.join(", ") : "none";
}

const limitFields = ["requests_per_minute", "tokens_per_minute", "concurrent_turns"];

// keyBody builds the JSON body from the form's strings: {name?, models,
// tools, limits, expires_at?}. create adds and checks the name; an
// expiry is a local date and time (the datetime-local field's value),
// sent as RFC 3339. It returns {body} or {error} naming the field.
export function keyBody(f, { create = false, now = Date.now() } = {}) {
  const body = {};
  if (create) {
    const name = (f.name ?? "").trim();
    if (!name) return { error: "Give the key a name." };
    if (!nameRe.test(name)) return { error: "A key's name is letters, digits, _ - and . only." };
    if (name.startsWith("key_")) return { error: "A key's name may not start with key_ (plain keys are named so)." };
    body.name = name;
  }
  body.models = parseList(f.models);
  body.tools = parseList(f.tools);
  const limits = {};
  for (const k of limitFields) {
    const s = String(f[k] ?? "").trim();
    if (s === "") {
      limits[k] = 0;
      continue;
    }
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0) return { error: `${k.replaceAll("_", " ")} must be a whole number, 0 for no limit.` };
    limits[k] = n;
  }
  body.limits = limits;
  const exp = (f.expires_at ?? "").trim();
  if (exp) {
    const t = new Date(exp);
    if (Number.isNaN(t.getTime())) return { error: "The expiry is not a date and time." };
    if (t.getTime() <= now) return { error: "The expiry must be in the future." };
    body.expires_at = t.toISOString();
  } else if (!create) {
    body.expires_at = null; // PATCH: no expiry
  }
  return { body };
}

// warningText reads one of an answer's warnings, a string or an object
// with a message.
export function warningText(w) {
  if (typeof w === "string") return w;
  return w?.message ?? JSON.stringify(w);
}

// localInput is a time as a datetime-local field shows it.
export function localInput(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
