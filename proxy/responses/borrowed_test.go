package responses_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/responses"
)

// recorded is a Writer that keeps every event.
type recorded struct{ lines []string }

func (w *recorded) WriteEvent(name string, data []byte) error {
	w.lines = append(w.lines, name+" "+string(data))
	return nil
}
func (w *recorded) Comment(string) error { return nil }

// TestEncoderTextBorrowed: text and reasoning are only valid during the
// call (loop.Out), so what the encoder keeps — the items' text,
// blank space held back until text follows — is a copy.
func TestEncoderTextBorrowed(t *testing.T) {
	thinking := []string{"Hm", ", ok.\n"}
	texts := []string{"\n\n", "Hi", "", " there. ", "\n", "Bye", ".\n\n"}
	answer := func(lendOrCopy func([]string, func(string) error) error) ([]string, responses.Finished) {
		r, err := responses.ToChat([]byte(`{"model":"m","stream":true,"input":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		var w recorded
		var kept responses.Finished
		e := responses.NewEncoder(r, responses.Options{ID: "resp_1", Created: 1, Writer: &w,
			NewID: func(p string) string { return p + "1" }, Keep: func(f responses.Finished) { kept = f }})
		if err := lendOrCopy(thinking, e.Reasoning); err != nil {
			t.Fatal(err)
		}
		if err := lendOrCopy(texts, e.Text); err != nil {
			t.Fatal(err)
		}
		if err := e.Done(); err != nil {
			t.Fatal(err)
		}
		return w.lines, kept
	}
	want, wantKept := answer(func(texts []string, f func(string) error) error {
		for _, s := range texts {
			if err := f(strings.Clone(s)); err != nil {
				return err
			}
		}
		return nil
	})
	got, gotKept := answer(encodertest.Lend)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantKept, gotKept); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
}
