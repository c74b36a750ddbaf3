// Package encodertest holds what the tests of the protocol encoders
// (proxy/messages, proxy/responses) share: writers that frame events as
// proxy's SSE writer does, and text lent the way the turn lends it.
package encodertest

import (
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/tools/txtar"
)

// SSE is a Writer that frames each event as the SSE writer does, for one
// whose JSON holds no line break (it panics on one: the encoders promise
// none).
type SSE struct{ strings.Builder }

// WriteEvent writes "event: name\ndata: data\n\n".
func (w *SSE) WriteEvent(name string, data []byte) error {
	if strings.ContainsAny(string(data), "\r\n") {
		panic("a line break in " + string(data))
	}
	w.WriteString("event: " + name + "\ndata: " + string(data) + "\n\n")
	return nil
}

// Comment writes ": text\n\n".
func (w *SSE) Comment(text string) error { w.WriteString(": " + text + "\n\n"); return nil }

// Framing is an SSE that also takes events the encoder framed itself, as
// the SSE writer does: the two must write the same bytes.
type Framing struct{ SSE }

// WriteFrame writes frame as it is.
func (w *Framing) WriteFrame(frame []byte) error { w.WriteString(string(frame)); return nil }

// Lend hands each of texts to f as the turn hands text to an event sink:
// a view of one buffer, written over once the call returns, so an
// encoder that keeps the string instead of a copy is caught.
func Lend(texts []string, f func(string) error) error {
	buf := make([]byte, 64)
	for _, s := range texts {
		n := copy(buf, s)
		err := f(unsafe.String(&buf[0], n))
		for i := range buf {
			buf[i] = '#'
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// GoldenRequests are the request.json sections of the golden files,
// testdata/*.txtar, of the package under test.
func GoldenRequests(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "request.json" {
				out = append(out, f.Data)
			}
		}
	}
	return out
}
