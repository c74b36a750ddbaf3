package loop

import "github.com/toolstream/toolstream/toolhost/store"

// NewID returns prefix followed by 24 random alphanumerics, the shape of
// OpenAI's ids ("chatcmpl-…", "call_…").
func NewID(prefix string) string { return store.NewID(prefix) }
