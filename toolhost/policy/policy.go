// Package policy evaluates the policies of a configuration over a tool
// call (docs/policies.md): rules looked at in order, matched by globs over
// the tool's and the key's names and a CEL expression over the call, that
// allow, deny or hold it for approval, and redact its result.
//
// A [Set] is compiled once, at load and at each reload, and is safe for
// concurrent use; [Set.Evaluate] does no compiling.
package policy

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/toolstream/toolstream/config"
)

// NOTE(policy): no cel.CostLimit. CEL has no unbounded loops: a when's
// cost grows with the arguments it walks, which max_request_bytes and the
// model's output bound, and the rules are the operator's own. Cost
// tracking tripled the CPU of BenchmarkEvaluate10 (11.3 µs against 3.8 µs
// per call), past the 5 µs a call may spend on ten rules.

// Set is a compiled policies list. The zero value and nil hold no rules.
type Set struct {
	rules []rule
	log   *slog.Logger
}

type rule struct {
	name    string
	tools   []string
	keys    []string
	prg     cel.Program // nil: always
	action  string
	message string
	redact  *regexp.Regexp
	// failed is set once the rule has failed at run time: it is logged
	// the first time only.
	failed *atomic.Bool
}

// Call is what a rule is matched against.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Key is the client key's name; empty without keys.
	Key string
	// Source is the route: chat, responses, messages or mcp.
	Source string
	// Args are the coerced arguments, a JSON object.
	Args json.RawMessage
}

// Verdict is what the rules say of a call.
type Verdict struct {
	// Rule names the rule that decided; empty when none did.
	Rule string
	// Action is config.PolicyAllow, PolicyDeny or PolicyApprove; empty
	// when no rule with an action matched (the call goes on as configured).
	Action string
	// Message is what the model reads of a deny.
	Message string
	// Redact holds the patterns of every matched rule up to and with the
	// one that decided, in order. A result has each match replaced with
	// [Redacted].
	Redact []*regexp.Regexp
}

// Redacted replaces every match of a redact_result pattern.
const Redacted = "[redacted]"

// Compile builds a Set from the configured rules. The configuration was
// validated; an error here means it was not (a config built in code).
// log hears, once per rule, of a rule that fails at run time; nil
// discards.
func Compile(ps []config.Policy, log *slog.Logger) (*Set, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{log: log}
	env, err := config.PolicyEnv()
	if err != nil {
		return nil, err
	}
	for i, p := range ps {
		r := rule{name: p.Name, tools: p.Tools, keys: p.Keys, action: p.Action, message: p.Message, failed: new(atomic.Bool)}
		if r.action == config.PolicyDeny && r.message == "" {
			r.message = "this call is not allowed by policy " + p.Name
		}
		if p.When != "" {
			ast, _, _, err := config.CompilePolicyWhen(p.When)
			if err != nil {
				return nil, fmt.Errorf("policies[%d].when: %w", i, err)
			}
			if r.prg, err = env.Program(ast, cel.EvalOptions(cel.OptOptimize)); err != nil {
				return nil, fmt.Errorf("policies[%d].when: %w", i, err)
			}
		}
		if p.RedactResult != "" {
			if r.redact, err = regexp.Compile(p.RedactResult); err != nil {
				return nil, fmt.Errorf("policies[%d].redact_result: %w", i, err)
			}
		}
		s.rules = append(s.rules, r)
	}
	return s, nil
}

// Len is the number of rules.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Evaluate looks at the rules in order. A rule matches when the tool and
// the key match its globs and its when is true; a when that fails (a
// missing field, a type the expression does not take) does not match, and
// is logged the first time. The first matching rule with an action
// decides and ends the evaluation; a matching rule that only redacts adds
// its pattern and lets it go on.
func (s *Set) Evaluate(c Call) Verdict {
	var v Verdict
	if s.Len() == 0 {
		return v
	}
	var vars interpreter.Activation // built at the first rule with a when
	for i := range s.rules {
		r := &s.rules[i]
		if !globs(r.tools, c.Tool) || !globs(r.keys, c.Key) {
			continue
		}
		if r.prg != nil {
			if vars == nil {
				vars = activation(c)
			}
			if !s.when(r, vars, c) {
				continue
			}
		}
		if r.redact != nil {
			v.Redact = append(v.Redact, r.redact)
		}
		if r.action != "" {
			v.Rule, v.Action, v.Message = r.name, r.action, r.message
			return v
		}
	}
	return v
}

// when runs r's expression; true only for a bool true.
func (s *Set) when(r *rule, vars interpreter.Activation, c Call) bool {
	out, _, err := r.prg.Eval(vars)
	if err == nil {
		if b, ok := out.(types.Bool); ok {
			return bool(b)
		}
		err = fmt.Errorf("gave %s, not a bool", out.Type().TypeName())
	}
	if r.failed.CompareAndSwap(false, true) {
		// Once per rule: a rule over a field some tools lack fails on
		// every such call, and one line says as much as a thousand.
		s.log.Warn("policy rule failed on a call and did not match; later failures of this rule are not logged",
			slog.String("policy", r.name), slog.String("tool", c.Tool), slog.String("error", err.Error()))
	}
	return false
}

// callVars is the variables a when sees, resolved without a map: one
// per call, shared by its rules, each value adapted to CEL once.
type callVars struct {
	args, tool, key, source ref.Val
}

func (v *callVars) ResolveName(name string) (any, bool) {
	switch name {
	case "args":
		return v.args, true
	case "tool":
		return v.tool, true
	case "key":
		return v.key, true
	case "source":
		return v.source, true
	}
	return nil, false
}

func (v *callVars) Parent() interpreter.Activation { return nil }

// activation is the variables a when sees. The arguments are decoded as
// JSON (objects become maps); ones that are not an object give an empty
// map, as a call's arguments always are an object after validation.
func activation(c Call) interpreter.Activation {
	args := map[string]any{}
	if len(c.Args) > 0 {
		_ = json.Unmarshal(c.Args, &args)
	}
	if args == nil { // "null"
		args = map[string]any{}
	}
	return &callVars{
		args: types.DefaultTypeAdapter.NativeToValue(args),
		tool: types.String(c.Tool), key: types.String(c.Key), source: types.String(c.Source),
	}
}

// globs reports whether name matches one of pats; no pats match all.
func globs(pats []string, name string) bool {
	if len(pats) == 0 {
		return true
	}
	for _, p := range pats {
		if p == "*" || p == name {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Redact replaces each match of pats in s with [Redacted].
func Redact(pats []*regexp.Regexp, s string) string {
	for _, re := range pats {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
}
