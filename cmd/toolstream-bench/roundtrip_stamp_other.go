//go:build !linux

package main

import "net"

// newStampConn leaves c as it is: only Linux stamps arrivals here.
func newStampConn(c net.Conn) net.Conn { return c }

// stampOn does nothing: only Linux stamps arrivals here.
func stampOn(net.Listener) {}
