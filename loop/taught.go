package loop

import "github.com/toolstream/toolstream/toolhost"

// Text mode's prompt is the turn's first round's all turn long (see
// taught). A tool the model may call from a later round on — one
// find_tools found, or a client tool shown since — is taught after the
// results of the round before, in a textmode.Found section that stays in
// that place in every later round and in the stored turn: the upstream
// reads each round as the last one's bytes followed by new ones.

// teachNew gives the turn's last round record the tools to teach after
// its results: those the round's request did not teach yet. It runs as
// the next round's request is built, once per record.
func (tr *turnRun) teachNew() {
	if tr.native || len(tr.history) == 0 {
		return
	}
	rec := &tr.history[len(tr.history)-1]
	if rec.native || rec.teachChecked {
		return
	}
	rec.teachChecked = true
	if tr.taughtNames == nil {
		tr.taughtNames = map[string]bool{}
		for _, t := range tr.taught() {
			tr.taughtNames[t.Name] = true
		}
		if tr.search != nil {
			// Found before this turn: taught in its history. This
			// turn's finds come after them and are not taught yet.
			for _, t := range tr.search.found[:tr.search.before] {
				tr.taughtNames[t.Name] = true
			}
		}
	}
	for _, t := range append(tr.offered()[:len(tr.offered()):len(tr.offered())], tr.clientToolDefs()...) {
		if !tr.taughtNames[t.Name] {
			tr.taughtNames[t.Name] = true
			rec.found = append(rec.found, t)
		}
	}
}

// noTools is a tool list that teaches nothing (see taught).
var noTools = []toolhost.Tool{}
