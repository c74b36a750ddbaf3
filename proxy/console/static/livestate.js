// The Live view's state: the turns in progress on this replica, as
// GET /admin/live tells them (docs/http-api.md): a snapshot, then one
// event per change carrying the turn as it now stands. Pure: the view
// draws what reduce returns.

// parseLive reads one event's data; null for one that is not an object
// with a type (skipped, as unknown events are).
export function parseLive(data) {
  try {
    const m = JSON.parse(data);
    return m && typeof m === "object" && typeof m.type === "string" ? m : null;
  } catch {
    return null;
  }
}

// reduce applies one event to the turns (a Map by id) and returns the
// new Map; the old one is left as it was. A snapshot replaces every
// turn; turn.ended removes one; any other event with a turn sets it;
// anything else changes nothing.
export function reduce(turns, m) {
  if (!m) return turns;
  if (m.type === "snapshot") return new Map((m.turns ?? []).filter((t) => t?.id).map((t) => [t.id, t]));
  const t = m.turn;
  if (!t?.id) return turns;
  const next = new Map(turns);
  if (m.type === "turn.ended") next.delete(t.id);
  else next.set(t.id, t);
  return next;
}

// ordered lists the turns oldest first, as the snapshot does.
export function ordered(turns) {
  return [...turns.values()].sort((a, b) => String(a.started_at).localeCompare(String(b.started_at)) || a.id.localeCompare(b.id));
}

// waiting lists a turn's calls that wait for a decision.
export function waiting(turn) {
  return (turn.calls ?? []).filter((c) => c.status === "waiting_approval" && c.action_id);
}

// summary says how many turns run and how many calls wait, for the
// view's status line.
export function summary(turns) {
  const n = turns.size;
  let w = 0;
  for (const t of turns.values()) w += waiting(t).length;
  const ts = n === 1 ? "1 turn in progress" : `${n === 0 ? "No" : n} turns in progress`;
  return w ? `${ts}; ${w === 1 ? "1 call waits" : w + " calls wait"} for a decision.` : `${ts}.`;
}
