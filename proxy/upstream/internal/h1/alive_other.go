//go:build !unix

package h1

// alive cannot look at a socket here: a kept connection the server
// closed is found when a request on it fails, and sent again.
func (pc *pconn) alive() bool { return true }
