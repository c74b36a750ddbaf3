package store

import (
	"fmt"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// The checks below are what [Checked] refuses before a backend sees the
// call.

// checkNames returns an error wrapping [ErrInvalidKey] naming what of
// names does not pass [ValidName].
func checkNames(what string, names ...string) error {
	for _, n := range names {
		if !ValidName(n) {
			return fmt.Errorf("%w: %s %q", ErrInvalidKey, what, shorten(n))
		}
	}
	return nil
}

// checkCall checks the ids a call record and its retry groups are kept
// under.
func checkCall(rec CallRecord, ref *AttemptRef) error {
	if err := checkNames("call record id", rec.ID); err != nil {
		return err
	}
	if ref != nil {
		if err := checkNames("attempt", ref.Attempt); err != nil {
			return err
		}
		if ref.Also != "" {
			return checkNames("attempt", ref.Also)
		}
	}
	return nil
}

// checkHash checks a runtime key's hash: 64 lower-case hex digits.
func checkHash(h string) error {
	ok := len(h) == 64
	for i := 0; ok && i < len(h); i++ {
		c := h[i]
		ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
	}
	if !ok {
		return fmt.Errorf("%w: key hash is not 64 lower-case hex digits", ErrInvalidKey)
	}
	return nil
}

// checkDecision checks the arguments of [ActionStore.DecideAction]: a valid
// action id, and a status that is a decision.
func checkDecision(id, status string) error {
	if err := checkNames("action id", id); err != nil {
		return fmt.Errorf("deciding action: %w", err)
	}
	switch status {
	case ActionApproved, ActionDenied, ActionExpired:
		return nil
	}
	return fmt.Errorf("deciding action %s: %q is not a decision (want approved, denied or expired)", id, status)
}

// shorten bounds a rejected name in an error message.
func shorten(s string) string { return clip.Excerpt(s, 64) }
