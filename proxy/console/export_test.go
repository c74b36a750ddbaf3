package console

// Paths lists the URL paths the handler serves.
func (h *Handler) Paths() []string {
	var out []string
	for p := range h.assets {
		out = append(out, p)
	}
	return out
}
