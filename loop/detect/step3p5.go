package detect

import "strings"

// Step 3.5's variant of qwen3_coder (docs/tool-calls.md): inside
// <tool_call>, the function's opening written without its '=',
//
//	<tool_call>
//	<function execute_bash>
//	<parameter=command>
//	ls
//	</parameter>
//	</function>
//	</tool_call>
//
// or with nothing at all between "function" and the name
// (<functionexecute_bash>), which vLLM's step3p5 parser mends to
// <function=NAME> (_fix_missing_equals_in_function_tag). Only the opening
// is read otherwise; the body is Qwen3-Coder's.

// cutQwenOpen cuts a function's opening off s: "<function=", or Step
// 3.5's "<function NAME>" and "<functionNAME>", whose rest is then given
// as "NAME>…", as after "<function=".
func cutQwenOpen(s string) (rest string, ok bool) {
	if rest, ok = strings.CutPrefix(s, qwenFunction); ok {
		return rest, true
	}
	rest, ok = strings.CutPrefix(s, "<function")
	if !ok {
		return "", false
	}
	i := skipBlanks(rest, 0)
	j, _ := nameEnd(rest[i:])
	k := skipBlanks(rest, i+j)
	if j == 0 || k == len(rest) || rest[k] != '>' || !isNameStart(rest[i]) || i == 0 && rest[i] == '_' {
		return "", false
	}
	return rest[i:i+j] + rest[k:], true
}

// isNameStart reports a byte a Step 3.5 function name may start with, as
// in vLLM's [a-zA-Z_] ("<function.x>" is not one; nor, without a blank
// before the name, is "<function_call>", another tag).
func isNameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
