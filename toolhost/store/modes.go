package store

import "context"

// ModeStore is auto mode's memory of the models that refused native tools.
type ModeStore interface {
	// TextFallback reports whether auto mode should use text mode for
	// model on upstream (remembered for a week).
	TextFallback(ctx context.Context, upstream, model string) (bool, error)
	RememberTextFallback(ctx context.Context, upstream, model string) error
}
