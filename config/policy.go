package config

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
)

// Policy actions (docs/policies.md).
const (
	// PolicyAllow: the call goes on to the tool's configured approval, and
	// no later rule is looked at.
	PolicyAllow = "allow"
	// PolicyDeny: the call does not run; the model reads POLICY_DENIED
	// with the rule's message.
	PolicyDeny = "deny"
	// PolicyApprove: the call is held for a person's decision, as with
	// approval: always, and a request's approve list does not lift it.
	PolicyApprove = "approve"
)

// Policy is one rule of policies: which calls it matches, and what it does
// with them. Rules are looked at in order; the first that matches and has
// an Action decides.
type Policy struct {
	// Name identifies the rule in the audit log and the log. Required,
	// unique.
	Name string `yaml:"name"`
	// Tools are globs (path.Match) over tool names. Empty means all.
	Tools []string `yaml:"tools"`
	// Keys are globs over client key names (auth.keys' name, or key_ and
	// a prefix of a plain key's hash). Empty means all, a proxy without
	// keys included.
	Keys []string `yaml:"keys"`
	// When is a CEL expression over args (the coerced arguments), tool,
	// key and source (chat, responses, messages or mcp) that must be true
	// for the rule to match. Empty means always.
	When string `yaml:"when"`
	// Action is allow, deny or approve. Empty only with RedactResult: the
	// rule then redacts and evaluation goes on to the next rule.
	Action string `yaml:"action"`
	// Message is what the model reads when the rule denies a call.
	// Default "this call is not allowed by policy <name>".
	Message string `yaml:"message"`
	// RedactResult is an RE2 pattern: each match in a matched call's
	// result becomes [redacted] before the model, the client and the
	// audit log see it.
	RedactResult string `yaml:"redact_result"`
}

// PolicyEnv is the CEL environment every when expression is compiled in:
// args a map of the coerced arguments (nested objects are maps), tool,
// key and source strings, and cel-go's string extensions (lowerAscii,
// split, …) beside the standard contains, startsWith, endsWith and
// matches. It is built once.
var PolicyEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("args", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("tool", cel.StringType),
		cel.Variable("key", cel.StringType),
		cel.Variable("source", cel.StringType),
		ext.Strings(),
		// JSON numbers arrive as doubles: args.amount > 100 should
		// compare them with an int as a person reads it.
		cel.CrossTypeNumericComparisons(true),
		// A bad pattern in matches("…") is a check error, not a rule
		// that fails on every call.
		cel.ASTValidators(cel.ValidateRegexLiterals()),
	)
})

// CompilePolicyWhen compiles a when expression, which must give a bool.
// A problem is reported with its place inside expr: line (1-based) and
// column (1-based), zero when unknown.
func CompilePolicyWhen(expr string) (*cel.Ast, int, int, error) {
	env, err := PolicyEnv()
	if err != nil {
		return nil, 0, 0, err
	}
	ast, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		errs := iss.Errors()
		loc := errs[0].Location
		msg := errs[0].Message
		if loc == nil || loc.Line() <= 0 {
			return nil, 0, 0, fmt.Errorf("%s", msg)
		}
		return nil, loc.Line(), loc.Column() + 1, fmt.Errorf("%s", msg)
	}
	if t := ast.OutputType(); t != cel.BoolType && t != cel.DynType {
		return nil, 1, 1, fmt.Errorf("gives %s, want a bool (true: the rule matches)", t)
	}
	return ast, 0, 0, nil
}

// policies checks the policies list: a unique name, a known action, globs
// that parse, a when that compiles to a bool and a redact_result that
// compiles as RE2. Problems inside an expression or pattern carry their
// place in it, so that "toolstream check" points at the character.
func (v *validator) policies(ps []Policy) {
	seen := map[string]int{}
	for i, p := range ps {
		at := fmt.Sprintf("policies[%d]", i)
		switch first, dup := seen[p.Name]; {
		case p.Name == "":
			v.add(at+".name", "required (a name the audit log shows, e.g. no-force-push)")
		case dup:
			v.add(at+".name", "duplicate rule name %q (first at %s)", p.Name, v.where(fmt.Sprintf("policies[%d]", first)))
		default:
			seen[p.Name] = i
		}
		for j, g := range p.Tools {
			v.pattern(fmt.Sprintf("%s.tools[%d]", at, j), g)
		}
		for j, g := range p.Keys {
			v.pattern(fmt.Sprintf("%s.keys[%d]", at, j), g)
		}
		switch p.Action {
		case PolicyAllow, PolicyDeny, PolicyApprove:
		case "":
			if p.RedactResult == "" {
				v.add(at+".action", "required (allow, deny or approve), unless the rule only redacts with redact_result")
			}
		default:
			v.add(at+".action", "unknown value %q (want allow, deny or approve)", p.Action)
		}
		if p.Message != "" && p.Action != PolicyDeny {
			v.add(at+".message", "only a deny rule has a message (the model reads it when the rule denies a call)")
		}
		if p.When != "" {
			if _, line, col, err := CompilePolicyWhen(p.When); err != nil {
				v.addAt(at+".when", line, col, "CEL: %s", err)
			}
		}
		if p.RedactResult != "" {
			if _, err := regexp.Compile(p.RedactResult); err != nil {
				v.addAt(at+".redact_result", 1, reOffset(p.RedactResult, err), "RE2: %s", err)
			}
		}
	}
}

// reOffset is the 1-based column of a regexp error inside pat: where the
// part it quotes starts, or 0 when it quotes nothing found.
func reOffset(pat string, err error) int {
	se, ok := err.(*syntax.Error)
	if !ok || se.Expr == "" {
		return 0
	}
	if i := strings.Index(pat, se.Expr); i >= 0 {
		return len([]rune(pat[:i])) + 1
	}
	return 0
}

// addAt records a problem at a place inside the scalar value of path:
// line and col count from 1 within the value (0: unknown). [Parse] turns
// them into the file's line and column.
func (v *validator) addAt(path string, line, col int, format string, args ...any) {
	v.add(path, format, args...)
	p := &v.problems[len(v.problems)-1]
	p.inLine, p.inCol = line, col
}
