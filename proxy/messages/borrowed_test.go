package messages_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/proxy/internal/encodertest"
	"github.com/toolstream/toolstream/proxy/messages"
)

// TestEncoderTextBorrowed: text is only valid during the call
// (loop.Out), so what the encoder holds back — blank space before a
// text block — is a copy, streamed or gathered.
func TestEncoderTextBorrowed(t *testing.T) {
	texts := []string{"\n\n", " ", "Hi", " there.\n", "\n"}
	answer := func(text func(e *messages.Encoder) error) ([]string, string) {
		var w events
		s := messages.NewStream(&w, messages.Options{ID: "msg_1", Model: "claude-x"})
		m := messages.NewMessage(messages.Options{ID: "msg_1", Model: "claude-x"})
		for _, e := range []*messages.Encoder{s, m} {
			if err := text(e); err != nil {
				t.Fatal(err)
			}
			if err := e.Finish("stop"); err != nil {
				t.Fatal(err)
			}
			if err := e.Done(); err != nil {
				t.Fatal(err)
			}
		}
		msg, err := m.Message()
		if err != nil {
			t.Fatal(err)
		}
		return w.lines, string(msg)
	}
	wantStream, wantMsg := answer(func(e *messages.Encoder) error {
		for _, s := range texts {
			if err := e.Text(strings.Clone(s)); err != nil {
				return err
			}
		}
		return nil
	})
	gotStream, gotMsg := answer(func(e *messages.Encoder) error { return encodertest.Lend(texts, e.Text) })
	if d := cmp.Diff(wantStream, gotStream); d != "" {
		t.Errorf("stream (-want +got):\n%s", d)
	}
	if gotMsg != wantMsg {
		t.Errorf("message\n got %s\nwant %s", gotMsg, wantMsg)
	}
}
