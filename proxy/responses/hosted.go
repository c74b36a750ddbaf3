package responses

// hostedKind reports whether a Responses tool type is a hosted tool this
// proxy can run on a server tool of its own (config hosted_tools): none
// yet, so web_search and the other hosted kinds are left out of the
// round and logged. The hosted-tool binding replaces this and readHosted.
func hostedKind(typ string) bool { return false }

// readHosted offers a hosted tool bound to a server tool; unbound, it is
// left out.
func (r *Request) readHosted(typ string, _ object, _ string) error {
	r.leaveOut("tool " + typ)
	return nil
}
