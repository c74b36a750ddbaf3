package toolhost

import (
	"regexp"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/policy"
)

// CodePolicyDenied answers a call a policies rule denied
// (docs/policies.md): the message is the rule's.
const CodePolicyDenied = "POLICY_DENIED"

// SetPolicies compiles the policies rules and puts them in force for the
// calls that start from now on, at start-up and on a reload. On an error
// the rules in force stay.
func (h *Host) SetPolicies(ps []config.Policy) error {
	s, err := policy.Compile(ps, h.log)
	if err != nil {
		return err
	}
	h.policies.Store(s)
	return nil
}

// verdict is what the policies say of a call whose arguments are args
// (coerced and valid): every route's calls come through Execute, so this
// is the one place they are looked at.
func (h *Host) verdict(call Call, args []byte) policy.Verdict {
	s := h.policies.Load()
	if s.Len() == 0 {
		return policy.Verdict{}
	}
	pc := policy.Call{Tool: call.Name, Args: args}
	if o := call.Origin; o != nil {
		pc.Key, pc.Source = o.KeyID, o.Source
	}
	return s.Evaluate(pc)
}

// policyDenied is the result of a call a rule denied.
func policyDenied(call Call, v policy.Verdict, args []byte) Result {
	res := ErrorResult(call, CodePolicyDenied, v.Message)
	res.Arguments = args
	return res
}

// heldBy is the tool as a policy verdict holds it: an approve rule holds a
// tool without approval as approval: always (an admin tool stays admin).
func heldBy(t Tool, v policy.Verdict) Tool {
	if v.Action == config.PolicyApprove && t.Approval != ApprovalAdmin {
		t.Approval = ApprovalAlways
	}
	return t
}

// redactOutcome replaces the matches of pats in out's result and error
// message: before the model, the client's events and the audit log see
// them, so that no store ever holds them.
func redactOutcome(pats []*regexp.Regexp, out Outcome) Outcome {
	if len(pats) == 0 {
		return out
	}
	out.Content = policy.Redact(pats, out.Content)
	if out.Err != nil {
		e := *out.Err
		e.Message, e.Detail = policy.Redact(pats, e.Message), policy.Redact(pats, e.Detail)
		out.Err = &e
	}
	return out
}

// redactedProgress redacts a running call's progress messages, which reach
// the client before its result does.
type redactedProgress struct {
	Progress
	r    ProgressReporter
	pats []*regexp.Regexp
}

func (p redactedProgress) ToolProgress(call Call, u ProgressUpdate) {
	u.Message = policy.Redact(p.pats, u.Message)
	p.r.ToolProgress(call, u)
}

// redactProgress returns call with its progress messages redacted.
func redactProgress(pats []*regexp.Regexp, call Call) Call {
	if r, ok := call.Progress.(ProgressReporter); ok && len(pats) > 0 {
		call.Progress = redactedProgress{Progress: call.Progress, r: r, pats: pats}
	}
	return call
}
