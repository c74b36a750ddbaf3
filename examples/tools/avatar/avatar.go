// Package avatar is an on-screen character's controls served as toolstream
// webhook tools: expression and motion. It only acknowledges: the value of
// such a tool is the tool event the client reads mid-reply, which the app
// turns into a smile or a wave while the text goes on. Standard library
// only, beside the webhook helper.
package avatar

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/toolstream/toolstream/examples/tools/webhook"
)

// Expressions and Motions are the names the tools accept.
var (
	Expressions = []string{"neutral", "smile", "laugh", "surprised", "sad", "thinking"}
	Motions     = []string{"wave", "nod", "shake_head", "bow", "jump"}
)

// Avatar remembers what it was asked to do, in order. The zero value is
// ready.
type Avatar struct {
	mu   sync.Mutex
	done []string
}

// Handler serves the avatar's tools, for calls signed with secret.
func (a *Avatar) Handler(secret string, log func(webhook.Call, error)) http.Handler {
	return webhook.Serve(secret, map[string]webhook.Func{
		"expression": a.expression,
		"motion":     a.motion,
	}, log)
}

// Done lists what the avatar showed, as "expression:smile" or
// "motion:wave".
func (a *Avatar) Done() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.done)
}

func (a *Avatar) expression(_ context.Context, c webhook.Call) (any, error) {
	var args struct {
		Name      string   `json:"name"`
		Intensity *float64 `json:"intensity"`
	}
	if err := webhook.Args(c, &args); err != nil {
		return nil, err
	}
	if err := oneOf("expression", args.Name, Expressions); err != nil {
		return nil, err
	}
	intensity := 1.0
	if args.Intensity != nil {
		intensity = *args.Intensity
	}
	if intensity < 0 || intensity > 1 {
		return nil, webhook.Errorf("intensity is from 0 to 1, not %g", intensity)
	}
	a.record("expression:" + args.Name)
	return map[string]any{"ok": true, "expression": args.Name, "intensity": intensity}, nil
}

func (a *Avatar) motion(_ context.Context, c webhook.Call) (any, error) {
	var args struct {
		Name string `json:"name"`
	}
	if err := webhook.Args(c, &args); err != nil {
		return nil, err
	}
	if err := oneOf("motion", args.Name, Motions); err != nil {
		return nil, err
	}
	a.record("motion:" + args.Name)
	return map[string]any{"ok": true, "motion": args.Name}, nil
}

func (a *Avatar) record(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = append(a.done, s)
}

func oneOf(what, name string, allowed []string) error {
	if !slices.Contains(allowed, name) {
		return webhook.Errorf("%s %q is not one of %s", what, name, strings.Join(allowed, ", "))
	}
	return nil
}
