package store

import (
	"fmt"

	"github.com/toolstream/toolstream/toolhost/clip"
)

// The checks below are what every backend refuses before it writes, the
// same way, so that a caller's mistake reads the same whichever backend
// runs.

// CheckNames returns an error wrapping [ErrInvalidKey] naming what of
// names does not pass [ValidName].
func CheckNames(what string, names ...string) error {
	for _, n := range names {
		if !ValidName(n) {
			return fmt.Errorf("%w: %s %q", ErrInvalidKey, what, shorten(n))
		}
	}
	return nil
}

// CheckCall checks the ids a call record and its retry groups are kept
// under.
func CheckCall(rec CallRecord, ref *AttemptRef) error {
	if err := CheckNames("call record id", rec.ID); err != nil {
		return err
	}
	if ref != nil {
		if err := CheckNames("attempt", ref.Attempt); err != nil {
			return err
		}
		if ref.Also != "" {
			return CheckNames("attempt", ref.Also)
		}
	}
	return nil
}

// CheckHash checks a runtime key's hash: 64 lower-case hex digits.
func CheckHash(h string) error {
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

// CheckDecision checks the arguments of [ActionStore.DecideAction]: a valid
// action id, and a status that is a decision.
func CheckDecision(id, status string) error {
	if err := CheckNames("action id", id); err != nil {
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
