// A key's usage per day as a small bar chart: inline SVG, no library.
// The scale and the days are worked out by pure functions (tested under
// node); usageChart draws them.

const svgNS = "http://www.w3.org/2000/svg";

// dayString is a Date's UTC day, YYYY-MM-DD (usage days are UTC).
export function dayString(d) {
  return d.toISOString().slice(0, 10);
}

// lastDays is the n UTC days ending with the day of now, oldest first.
export function lastDays(n, now = new Date()) {
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: n }, (_, i) => dayString(new Date(end - (n - 1 - i) * 86400000)));
}

// series picks one key's rows for days, a zero row for a day without
// usage (days without turns have no row).
export function series(rows, key, days) {
  const byDay = new Map();
  for (const r of rows ?? []) if (r.key === key) byDay.set(r.day, r);
  return days.map((day) => byDay.get(day) ?? {
    key, day, requests: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, tool_calls: 0,
  });
}

// niceMax is the top of the scale: the smallest 1, 2 or 5 times a power
// of ten at or above v (1 for nothing), so the axis reads round.
export function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// bars lays out one field of a series in a width × height box: a bar per
// day, left to right, its height in proportion to the scale's top; a day
// with any use is at least 1 unit high so it shows.
export function bars(rows, field, { width = 140, height = 32, gap = 1 } = {}) {
  const max = niceMax(Math.max(0, ...rows.map((r) => r[field] ?? 0)));
  const w = rows.length ? (width - gap * (rows.length - 1)) / rows.length : 0;
  return {
    max,
    bars: rows.map((r, i) => {
      const v = r[field] ?? 0;
      const h = v > 0 ? Math.max(1, (v / max) * height) : 0;
      return { x: i * (w + gap), y: height - h, w, h, day: r.day, value: v };
    }),
  };
}

// total sums a field over rows.
export function total(rows, field) {
  return rows.reduce((s, r) => s + (r[field] ?? 0), 0);
}

// usageChart draws a key's requests per day; each bar's title gives the
// day's figures, and the figure's label says what the chart shows.
export function usageChart(rows, { width = 140, height = 32 } = {}) {
  const { max, bars: bs } = bars(rows, "requests", { width, height });
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 1}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height + 1);
  svg.setAttribute("class", "usage-chart");
  svg.setAttribute("role", "img");
  const first = rows[0]?.day ?? "", last = rows[rows.length - 1]?.day ?? "";
  svg.setAttribute("aria-label", `Requests per day, ${first} to ${last}: ${total(rows, "requests")} in all; the scale tops at ${max}.`);
  const base = document.createElementNS(svgNS, "line");
  for (const [k, v] of Object.entries({ x1: 0, x2: width, y1: height + 0.5, y2: height + 0.5, class: "axis" })) base.setAttribute(k, v);
  svg.append(base);
  bs.forEach((b, i) => {
    const r = rows[i];
    const rect = document.createElementNS(svgNS, "rect");
    for (const [k, v] of Object.entries({ x: b.x, y: b.y, width: b.w, height: b.h, "data-day": b.day, "data-requests": b.value })) {
      rect.setAttribute(k, v);
    }
    const title = document.createElementNS(svgNS, "title");
    title.textContent = `${r.day}: ${r.requests} requests, ${r.prompt_tokens} prompt + ${r.completion_tokens} completion tokens` +
      ` (${r.cached_tokens} cached), ${r.tool_calls} tool calls`;
    rect.append(title);
    svg.append(rect);
  });
  return svg;
}
