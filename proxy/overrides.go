package proxy

import (
	"net/http"
	"strings"

	"github.com/toolstream/toolstream/loop"
)

// Header names of the per-request overrides (SPEC §2).
const (
	headerMode    = "X-Toolstream-Mode"
	headerTools   = "X-Toolstream-Tools"
	headerDisplay = "X-Toolstream-Display"
)

// headerOverrides reads the X-Toolstream-* headers. X-Toolstream-Tools is a
// comma-separated list of server tool names; "none" or an empty value
// means no server tools. The body's "toolstream" object wins where both
// set a field.
func headerOverrides(h http.Header) (loop.Overrides, error) {
	var o loop.Overrides
	var err error
	if o.Mode, err = loop.OverrideValue(strings.TrimSpace(h.Get(headerMode)), "toolstream.tool_mode"); err != nil {
		return o, err
	}
	if o.Display, err = loop.OverrideValue(strings.TrimSpace(h.Get(headerDisplay)), "toolstream.display"); err != nil {
		return o, err
	}
	if vs, ok := h[http.CanonicalHeaderKey(headerTools)]; ok {
		o.Tools = []string{}
		for _, v := range vs {
			for _, n := range strings.Split(v, ",") {
				if n = strings.TrimSpace(n); n != "" && !strings.EqualFold(n, "none") {
					o.Tools = append(o.Tools, n)
				}
			}
		}
	}
	return o, nil
}
