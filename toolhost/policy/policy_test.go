package policy_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/policy"
)

// load parses a policies block the way serve does, so the rules are
// checked as a file's are.
func load(t *testing.T, yaml string) []config.Policy {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Policies
}

func compile(t *testing.T, yaml string, log *slog.Logger) *policy.Set {
	t.Helper()
	s, err := policy.Compile(load(t, yaml), log)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const rules = `policies:
  - name: mask-emails
    tools: ["crm_*"]
    redact_result: '[\w.+-]+@[\w-]+\.[\w.]+'
  - name: no-force-push
    tools: ["run_shell"]
    when: 'args.command.matches("push\\s+(-f|--force)")'
    action: deny
    message: force pushes are not allowed here
  - name: big-refunds
    tools: ["refund"]
    when: 'args.order.amount > 100'
    action: approve
  - name: reader-reads
    keys: ["reader"]
    tools: ["get_*", "list_*"]
    action: allow
  - name: reader-nothing-else
    keys: ["reader"]
    action: deny
  - name: mcp-no-delete
    tools: ["*_delete"]
    when: 'source == "mcp"'
    action: deny
  - name: crm-allow
    tools: ["crm_*"]
    action: allow
  - name: crm-never-reached
    tools: ["crm_*"]
    action: deny
`

// TestEvaluate is the rules' table: globs over tools and keys, CEL over
// nested arguments, the first matching rule winning, allow ending the
// evaluation, and redact-only rules letting it go on.
func TestEvaluate(t *testing.T) {
	t.Parallel()
	s := compile(t, rules, nil)
	for _, tc := range []struct {
		name       string
		call       policy.Call
		wantRule   string
		wantAction string
		wantRedact int
	}{
		{"force push denied", policy.Call{Tool: "run_shell", Args: json.RawMessage(`{"command":"git push  --force origin main"}`)}, "no-force-push", "deny", 0},
		{"short flag denied", policy.Call{Tool: "run_shell", Args: json.RawMessage(`{"command":"git push -f"}`)}, "no-force-push", "deny", 0},
		{"ls runs", policy.Call{Tool: "run_shell", Args: json.RawMessage(`{"command":"ls"}`)}, "", "", 0},
		{"nested amount over", policy.Call{Tool: "refund", Args: json.RawMessage(`{"order":{"id":"o1","amount":150.5}}`)}, "big-refunds", "approve", 0},
		{"nested amount int over", policy.Call{Tool: "refund", Args: json.RawMessage(`{"order":{"amount":101}}`)}, "big-refunds", "approve", 0},
		{"nested amount under", policy.Call{Tool: "refund", Args: json.RawMessage(`{"order":{"amount":100}}`)}, "", "", 0},
		{"reader reads", policy.Call{Tool: "get_order", Key: "reader"}, "reader-reads", "allow", 0},
		{"reader lists", policy.Call{Tool: "list_tasks", Key: "reader"}, "reader-reads", "allow", 0},
		{"reader writes", policy.Call{Tool: "refund", Key: "reader", Args: json.RawMessage(`{"order":{"amount":1}}`)}, "reader-nothing-else", "deny", 0},
		{"first match wins over a later deny", policy.Call{Tool: "run_shell", Key: "reader", Args: json.RawMessage(`{"command":"git push --force"}`)}, "no-force-push", "deny", 0},
		{"other key", policy.Call{Tool: "refund", Key: "writer", Args: json.RawMessage(`{"order":{"amount":1}}`)}, "", "", 0},
		{"source mcp", policy.Call{Tool: "notes_delete", Source: "mcp"}, "mcp-no-delete", "deny", 0},
		{"source chat", policy.Call{Tool: "notes_delete", Source: "chat"}, "", "", 0},
		{"redact then allow stops", policy.Call{Tool: "crm_get"}, "crm-allow", "allow", 1},
		{"redact, then the reader's deny", policy.Call{Tool: "crm_list", Key: "reader"}, "reader-nothing-else", "deny", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := s.Evaluate(tc.call)
			if v.Rule != tc.wantRule || v.Action != tc.wantAction || len(v.Redact) != tc.wantRedact {
				t.Errorf("verdict = %q %q redact %d, want %q %q redact %d", v.Rule, v.Action, len(v.Redact), tc.wantRule, tc.wantAction, tc.wantRedact)
			}
			if v.Action == "deny" && v.Message == "" {
				t.Error("a deny with no message")
			}
		})
	}
}

// TestEvaluateMessages: a deny says the rule's message, or names the rule.
func TestEvaluateMessages(t *testing.T) {
	t.Parallel()
	s := compile(t, "policies:\n  - {name: a, tools: [x], action: deny, message: not here}\n  - {name: b, action: deny}\n", nil)
	if got := s.Evaluate(policy.Call{Tool: "x"}).Message; got != "not here" {
		t.Errorf("message = %q", got)
	}
	if got := s.Evaluate(policy.Call{Tool: "y"}).Message; got != "this call is not allowed by policy b" {
		t.Errorf("message = %q", got)
	}
}

// TestRuntimeErrorLoggedOnce: a rule over a field a call lacks does not
// match, and the log hears of it once, however often it fails.
func TestRuntimeErrorLoggedOnce(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := compile(t, `policies:
  - name: needs-command
    when: 'args.command.contains("rm")'
    action: deny
  - name: not-a-bool
    when: 'args.flag'
    action: deny
`, slog.New(slog.NewJSONHandler(&logs, nil)))
	for range 3 {
		if v := s.Evaluate(policy.Call{Tool: "t", Args: json.RawMessage(`{"flag":"yes"}`)}); v.Action != "" {
			t.Fatalf("a failing rule matched: %+v", v)
		}
	}
	if v := s.Evaluate(policy.Call{Tool: "t", Args: json.RawMessage(`{"command":"rm -rf /","flag":true}`)}); v.Rule != "needs-command" {
		t.Errorf("the rule no longer matches a call that has the field: %+v", v)
	}
	if v := s.Evaluate(policy.Call{Tool: "t", Args: json.RawMessage(`{"command":"ls","flag":true}`)}); v.Rule != "not-a-bool" {
		t.Errorf("the bool rule did not match a bool: %+v", v)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec struct{ Policy string }
		json.Unmarshal([]byte(line), &rec)
		got = append(got, rec.Policy)
	}
	if diff := cmp.Diff([]string{"needs-command", "not-a-bool"}, got); diff != "" {
		t.Errorf("rules logged (-want +got):\n%s", diff)
	}
}

// TestRecompile: a reload compiles the new rules; the old Set is unchanged.
func TestRecompile(t *testing.T) {
	t.Parallel()
	old := compile(t, "policies:\n  - {name: a, tools: [x], action: deny}\n", nil)
	next := compile(t, "policies:\n  - {name: b, tools: [x], action: approve}\n", nil)
	if v := old.Evaluate(policy.Call{Tool: "x"}); v.Rule != "a" {
		t.Errorf("old set: %+v", v)
	}
	if v := next.Evaluate(policy.Call{Tool: "x"}); v.Rule != "b" || v.Action != "approve" {
		t.Errorf("new set: %+v", v)
	}
	var none *policy.Set
	if v := none.Evaluate(policy.Call{Tool: "x"}); v.Action != "" {
		t.Errorf("nil set: %+v", v)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	s := compile(t, rules, nil)
	v := s.Evaluate(policy.Call{Tool: "crm_get"})
	got := policy.Redact(v.Redact, `{"owner":"ann.lee+x@example.co.uk","note":"mail bob@corp.io now"}`)
	if want := `{"owner":"[redacted]","note":"mail [redacted] now"}`; got != want {
		t.Errorf("redacted = %s, want %s", got, want)
	}
}

// BenchmarkEvaluate10 is ten rules over a call that none of the first
// nine match (the costliest path: every glob and every when looked at).
func BenchmarkEvaluate10(b *testing.B) {
	var y strings.Builder
	y.WriteString("policies:\n")
	for i := range 9 {
		y.WriteString("  - name: r" + string(rune('0'+i)) + "\n    tools: [\"run_*\", \"crm_*\"]\n    when: 'args.command.contains(\"push --force\") || args.n > 100'\n    action: deny\n")
	}
	y.WriteString("  - name: last\n    tools: [\"run_shell\"]\n    when: 'args.command.startsWith(\"ls\")'\n    action: allow\n")
	cfg, err := config.Parse("t.yaml", []byte(y.String()), nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := policy.Compile(cfg.Policies, nil)
	if err != nil {
		b.Fatal(err)
	}
	call := policy.Call{Tool: "run_shell", Key: "k", Source: "chat", Args: json.RawMessage(`{"command":"ls -la","n":3}`)}
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Evaluate(call); v.Rule != "last" {
			b.Fatal(v)
		}
	}
}

// FuzzEvaluate feeds the rules arguments of any shape: evaluation never
// panics, gives the same verdict twice, and decides only with a rule's
// own action.
func FuzzEvaluate(f *testing.F) {
	for _, seed := range []string{`{"command":"git push --force"}`, `{"order":{"amount":150}}`, `null`, `[]`, `{"command":7}`, `{"order":"x"}`, `{`} {
		f.Add("run_shell", seed)
	}
	cfg, err := config.Parse("t.yaml", []byte(rules), nil)
	if err != nil {
		f.Fatal(err)
	}
	s, err := policy.Compile(cfg.Policies, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		c := policy.Call{Tool: tool, Key: "reader", Source: "chat", Args: json.RawMessage(args)}
		v := s.Evaluate(c)
		if w := s.Evaluate(c); w.Rule != v.Rule || w.Action != v.Action {
			t.Fatalf("verdicts differ: %+v then %+v", v, w)
		}
		if (v.Rule == "") != (v.Action == "") {
			t.Fatalf("verdict %+v: a rule without an action, or an action without a rule", v)
		}
	})
}
