// Keys and requests. The keys live in sessionStorage only: gone when the
// tab closes, never written to disk by the page, never sent anywhere but
// this origin's API.

const storageKeys = { "api-key": "toolstream.apiKey", "admin-key": "toolstream.adminKey" };

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: the keys last as long as the page
  }
}

// initKeys fills the key fields from session storage and saves every edit.
export function initKeys() {
  const s = storage();
  for (const [id, name] of Object.entries(storageKeys)) {
    const input = document.getElementById(id);
    input.value = s?.getItem(name) ?? "";
    input.addEventListener("input", () => {
      const v = input.value.trim();
      if (v) s?.setItem(name, v);
      else s?.removeItem(name);
    });
  }
}

export const apiKey = () => document.getElementById("api-key").value.trim();
export const adminKey = () => document.getElementById("admin-key").value.trim();

// authHeaders is the Authorization header for key; none without a key (a
// proxy on loopback may run without keys).
export function authHeaders(key) {
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// errorMessage reads an error response: OpenAI's {"error":{"message"}}
// shape when it is one, else the status and the start of the body.
export async function errorMessage(resp) {
  const text = await resp.text().catch(() => "");
  try {
    const e = JSON.parse(text).error;
    if (e?.message) return `${resp.status}: ${e.message}`;
  } catch {
    // not JSON
  }
  return `${resp.status} ${resp.statusText}${text ? ": " + text.slice(0, 200) : ""}`;
}

// getJSON GETs path with key and returns the parsed body; a failure
// throws an Error whose message is fit to show.
export async function getJSON(path, key) {
  const resp = await fetch(path, { headers: authHeaders(key), cache: "no-store" });
  if (!resp.ok) throw new Error(await errorMessage(resp));
  return resp.json();
}

// el builds an element. Text is always set as text, never parsed as HTML:
// everything shown comes from a model or a tool.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c !== undefined && c !== null) e.append(c);
  }
  return e;
}

// pretty shows a JSON value for people: objects indented, strings as they
// are.
export function pretty(v) {
  if (v === undefined) return "";
  if (typeof v === "string") return v;
  return JSON.stringify(v, null, 2);
}

// duration formats milliseconds.
export function duration(ms) {
  if (typeof ms !== "number") return "";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}
