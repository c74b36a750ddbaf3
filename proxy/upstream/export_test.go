package upstream

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// UseNetHTTP makes c send its chat requests to plain-http servers over
// net/http's Transport, as it does for https ones: the transport table
// drives both transports against the same scripted servers.
func UseNetHTTP(c *Client) {
	for _, s := range c.servers {
		s.useH1 = false
	}
}

// OnNetHTTPClose calls f each time a connection net/http's Transport
// dialled for c is closed: a test waits on it instead of on a sleep for
// net/http's read loop to drop a connection the server closed.
func OnNetHTTPClose(c *Client, f func()) {
	tr := c.client.Transport.(*http.Transport)
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &closeHook{Conn: conn, f: f}, nil
	}
}

type closeHook struct {
	net.Conn
	f    func()
	once sync.Once
}

func (c *closeHook) Close() error {
	c.once.Do(c.f)
	return c.Conn.Close()
}
