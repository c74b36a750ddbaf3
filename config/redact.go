package config

import (
	"fmt"
	"io"
	"strings"
)

// Format makes every fmt verb print the redacted form. String alone is
// not enough: for verbs like %d fmt reports a bad verb and then prints
// the raw value with String methods switched off.
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		io.WriteString(f, s.GoString())
	case verb == 'q':
		fmt.Fprintf(f, "%q", s.String())
	default:
		io.WriteString(f, s.String())
	}
}

// Format prints the webhook with its secrets redacted. Without it, %s of
// a Tool or Config reaches this pointer at depth and fmt prints it on its
// bad-verb path, which skips Secret's methods and shows the secrets.
func (w *Webhook) Format(f fmt.State, verb rune) {
	if w == nil {
		io.WriteString(f, "<nil>")
		return
	}
	type webhook Webhook // the same fields without this method
	if verb == 'v' && f.Flag('#') {
		s := fmt.Sprintf("%#v", webhook(*w))
		io.WriteString(f, "&config.Webhook"+s[strings.IndexByte(s, '{'):])
		return
	}
	io.WriteString(f, "&")
	fmt.Fprintf(f, fmt.FormatString(f, verb), webhook(*w))
}
