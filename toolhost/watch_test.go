package toolhost_test

import (
	"slices"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost"
)

// TestWatch: every change of the tool set is heard, with the new set
// readable from the watcher, and a stopped watcher hears nothing more.
func TestWatch(t *testing.T) {
	const url = "http://127.0.0.1:9/"
	h := newHost(t, []config.Tool{namedTool("a", url)}, toolhost.Options{})
	var seen [][]string
	stop := h.Watch(func() { seen = append(seen, h.Names()) })

	if err := h.SetConfigTools([]config.Tool{namedTool("a", url), namedTool("b", url)}); err != nil {
		t.Fatal(err)
	}
	exec, err := h.Webhook(namedTool("r", url), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Register(toolhost.Tool{Name: "r", Source: toolhost.SourceRuntime}, exec); err != nil {
		t.Fatal(err)
	}
	h.Remove("r")
	want := [][]string{{"a", "b"}, {"a", "b", "r"}, {"a", "b"}}
	if !slices.EqualFunc(seen, want, slices.Equal) {
		t.Errorf("watcher saw %v, want %v", seen, want)
	}
	stop()
	h.Remove("b")
	if len(seen) != len(want) {
		t.Errorf("a stopped watcher heard %v", seen[len(want):])
	}
}
