package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
)

// TestValidatePolicies breaks each policies rule once and pins the message
// and its line:col — for a CEL or RE2 error, the character inside the
// expression the error is about, whichever way the value is quoted.
func TestValidatePolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"bad CEL plain", "policies:\n  - name: a\n    action: deny\n    when: args.x ==\n", []string{
			`t.yaml:4:20: policies[0].when: CEL: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}`}},
		{"bad CEL quoted", "policies:\n  - name: a\n    action: deny\n    when: 'args.command.contains(\"x\") && nope'\n", []string{
			`t.yaml:4:42: policies[0].when: CEL: undeclared reference to 'nope' (in container '')`}},
		{"bad CEL block", "policies:\n  - name: a\n    action: deny\n    when: |\n      tool == \"x\" &&\n        missing > 1\n", []string{
			`t.yaml:6:9: policies[0].when: CEL: undeclared reference to 'missing' (in container '')`}},
		{"CEL not a bool", "policies:\n  - name: a\n    action: deny\n    when: 'tool + \"x\"'\n", []string{
			`t.yaml:4:12: policies[0].when: CEL: gives string, want a bool (true: the rule matches)`}},
		{"bad pattern in matches", "policies:\n  - name: a\n    action: deny\n    when: 'args.c.matches(\"(x\")'\n", []string{
			`t.yaml:4:27: policies[0].when: CEL: invalid matches argument`}},
		{"bad RE2", "policies:\n  - name: a\n    redact_result: 'ab(c'\n", []string{
			"t.yaml:3:21: policies[0].redact_result: RE2: error parsing regexp: missing closing ): `ab(c`"}},
		{"bad RE2 inside", "policies:\n  - name: a\n    redact_result: x[a-\n", []string{
			"t.yaml:3:21: policies[0].redact_result: RE2: error parsing regexp: missing closing ]: `[a-`"}},
		{"unknown action", "policies:\n  - name: a\n    action: block\n", []string{
			`t.yaml:3:13: policies[0].action: unknown value "block" (want allow, deny or approve)`}},
		{"no action", "policies:\n  - name: a\n    tools: [x]\n", []string{
			`t.yaml:2:5: policies[0].action: required (allow, deny or approve), unless the rule only redacts with redact_result`}},
		{"unknown key", "policies:\n  - name: a\n    action: deny\n    tool: [x]\n", []string{
			`t.yaml:4:5: policies[0].tool: unknown key (did you mean tools?)`}},
		{"no name, dup name", "policies:\n  - action: deny\n  - {name: b, action: deny}\n  - {name: b, action: allow}\n", []string{
			`t.yaml:2:5: policies[0].name: required (a name the audit log shows, e.g. no-force-push)`,
			`t.yaml:4:12: policies[2].name: duplicate rule name "b" (first at policies[1] at line 3)`}},
		{"bad glob", "policies:\n  - {name: a, action: deny, tools: ['[x'], keys: ['']}\n", []string{
			`t.yaml:2:37: policies[0].tools[0]: bad pattern "[x" (path.Match syntax: * any run, ? one character, [a-z] a class, \ escapes)`,
			`t.yaml:2:51: policies[0].keys[0]: empty pattern (want e.g. gpt-* or llama3.1:8b)`}},
		{"message on allow", "policies:\n  - {name: a, action: allow, message: hi}\n", []string{
			`t.yaml:2:39: policies[0].message: only a deny rule has a message (the model reads it when the rule denies a call)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, problems(t, tc.src, nil)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPoliciesAccepted: the rules docs/policies.md shows load as written.
func TestPoliciesAccepted(t *testing.T) {
	t.Parallel()
	src := `policies:
  - name: mask-emails
    redact_result: '[\w.+-]+@[\w-]+\.[\w.]+'
  - name: no-force-push
    tools: ["run_shell"]
    when: 'args.command.matches("push\\s+(-f|--force)")'
    action: deny
    message: force pushes are not allowed here
  - name: big-refunds
    tools: ["refund"]
    when: 'double(args.amount) > 100.0'
    action: approve
  - name: reader
    keys: ["reader"]
    tools: ["get_*", "list_*"]
    action: allow
  - name: reader-nothing-else
    keys: ["reader"]
    action: deny
`
	cfg, err := config.Parse("t.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Policies) != 5 || cfg.Policies[1].Action != config.PolicyDeny || cfg.Policies[0].RedactResult == "" {
		t.Errorf("policies = %+v", cfg.Policies)
	}
}
