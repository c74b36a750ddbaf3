package detect

// Seed-OSS's reasoning span, <seed:think>…</seed:think>: shown as <think>
// is, and nothing in it runs (rule 7), so a Seed reply that quotes its own
// call while it thinks runs that call once, where it writes it after.
const (
	seedThinkOpen  = "<seed:think>"
	seedThinkClose = "</seed:think>"
)
