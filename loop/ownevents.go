package loop

// The turn's own output — text it writes itself (held-back text, cards),
// reasoning the think split still held, a client call found in text,
// toolstream's events, a finish it decided — goes to every Out as typed
// events. An Out of chat chunks builds chunks of its own from them, with
// the identity Begin gave it and the role on the answer's first delta.

// own readies the stream for a piece of the turn's own output. An Out of
// chat chunks needs the turn's identity first, and the piece opens the
// answer when nothing did yet: its chunk carries the role, so no
// forwarded chunk after it may (fixRole).
func (s *stream) own() {
	switch {
	case s.out.chunks():
		s.ensureStarted()
		s.roleSent = true
	case s.out.metas():
		s.ensureStarted() // chat's collected answer has the identity too
	}
}

// sendContent hands on text the turn writes itself.
func (s *stream) sendContent(text string) error {
	if text == "" {
		return nil
	}
	s.own()
	return s.out.text(text)
}

// sendReasoning hands on reasoning the turn split off itself.
func (s *stream) sendReasoning(text string) error {
	if text == "" {
		return nil
	}
	s.own()
	return s.out.reasoning(text)
}

// sendFinish hands on the turn's finish_reason.
func (s *stream) sendFinish(reason string) error {
	s.own()
	return s.out.finish(reason)
}

// sendEvent hands on one of toolstream's events.
func (s *stream) sendEvent(ev *Event) error {
	s.own()
	return s.out.event(ev)
}

// sendToolCalls hands on the tool-call fragments frags.
func (s *stream) sendToolCalls(frags []clientFragment) error {
	s.own()
	e := edits{native: true, frags: frags}
	return s.emitToolCalls(nil, &e)
}
