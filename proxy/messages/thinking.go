package messages

import (
	"crypto/sha256"
	"encoding/base64"
	"hash"
)

// signaturePrefix begins the signature of every thinking block this proxy
// writes. Anthropic's signatures are opaque base64 of its own; ours are
// told apart by the prefix and checked by the hash that follows.
const signaturePrefix = "toolstream1."

// Signature is the signature of a thinking block this proxy wrote for
// model (the model the client named) with the text thinking: the prefix
// and a SHA-256 of the two. It is no secret and proves nothing to a third
// party; it tells this proxy that a thinking block sent back came from
// an answer of its own for the same model, unedited, so that its text
// may go back to the upstream as the reasoning_content it came from.
// Thinking from Anthropic (or another model, or edited) has another
// signature and is dropped: a chat upstream cannot read Anthropic's, and
// another model's reasoning is not this model's.
func Signature(model, thinking string) string {
	s := newSigner(model)
	s.Write([]byte(thinking))
	return sum(s)
}

// newSigner starts the hash of a thinking block for model; its text is
// written to it as it streams, and [sum] is the signature.
func newSigner(model string) hash.Hash {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	return h
}

func sum(h hash.Hash) string {
	return signaturePrefix + base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:24])
}

// readThinking reads a thinking block an assistant message sends back:
// this proxy's own, for this model (see [Signature]), adds its text to
// the message's reasoning_content; any other is dropped.
func (r *Request) readThinking(t *turn, o object, p string) error {
	text, err := readString(o["thinking"], p+".thinking")
	if err != nil {
		return err
	}
	sig, err := readString(o["signature"], p+".signature")
	if err != nil {
		return err
	}
	if t.role == "assistant" && text != "" && sig == Signature(r.Model, text) {
		t.reasoning.WriteString(text)
	}
	return nil
}
