package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/toolstream/toolstream/toolhost/store"
)

// Reconnection backoff of the listener.
const (
	minListenBackoff = 100 * time.Millisecond
	maxListenBackoff = 5 * time.Second
)

// maxListenIdle bounds how long the listener waits for a notification
// before it pings its connection: a link that went silent without being
// closed (a partitioned network, a frozen server) would otherwise hold
// it forever, and TCP keepalives take minutes to notice.
const maxListenIdle = 10 * time.Second

// Subscribe calls f with every change committed by any store on this
// database, this one included, until stop or Close
// ([store.ChangeFeed.Subscribe]). Changes arrive through LISTEN/NOTIFY, in
// commit order; a [store.ChangeResync] follows a lost listener
// connection, and comes every [Options.ResyncInterval] besides.
func (d *DB) Subscribe(f func(store.Change)) (stop func()) {
	return d.feed.Subscribe(f)
}

// listen opens the listener's connection, outside the pool: a LISTEN
// belongs to its session, which the pool would hand to other work.
func (d *DB) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, d.listenCfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		closeConn(conn)
		return nil, err
	}
	d.listenerPID.Store(conn.PgConn().PID())
	return conn, nil
}

// listenLoop publishes every notification conn receives until Close.
// When the connection drops it reconnects with backoff and, once
// listening again, publishes a resync: what was notified meanwhile is
// lost.
func (d *DB) listenLoop(conn *pgx.Conn) {
	defer func() {
		if conn != nil {
			closeConn(conn)
		}
	}()
	backoff := minListenBackoff
	for {
		if conn == nil {
			t := time.NewTimer(backoff)
			select {
			case <-d.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(d.ctx, d.opts.OpTimeout)
			c, err := d.listen(ctx)
			cancel()
			if err != nil {
				if d.ctx.Err() != nil {
					return
				}
				backoff = min(2*backoff, maxListenBackoff)
				continue
			}
			conn, backoff = c, minListenBackoff
			d.log.Info("listening for storage changes again", "component", "storage")
			d.feed.Publish(store.Change{Kind: store.ChangeResync})
		}
		n, err := d.waitNotification(conn)
		if err != nil {
			if d.ctx.Err() != nil {
				return
			}
			d.log.Warn("lost the storage change connection; reconnecting", "component", "storage", "error", err)
			closeConn(conn)
			conn = nil
			continue
		}
		if c, ok := parsePayload(n.Payload); ok {
			d.feed.Publish(c)
		}
	}
}

// waitNotification waits for the next notification on conn. When none
// comes for a while it pings the connection, and returns an error only
// when the ping fails: an idle channel is no lost connection.
func (d *DB) waitNotification(conn *pgx.Conn) (*pgconn.Notification, error) {
	idle := min(d.opts.ResyncInterval, maxListenIdle)
	for {
		ctx, cancel := context.WithTimeout(d.ctx, idle)
		n, err := conn.WaitForNotification(ctx)
		cancel()
		if err == nil || d.ctx.Err() != nil || !pgconn.Timeout(err) {
			return n, err
		}
		ctx, cancel = context.WithTimeout(d.ctx, min(d.opts.OpTimeout, DefaultConnectTimeout))
		err = conn.Ping(ctx)
		cancel()
		if err != nil {
			return nil, err
		}
	}
}

// resyncLoop publishes a resync every ResyncInterval until Close: the
// fallback for a notification lost without the connection dropping.
func (d *DB) resyncLoop() {
	t := time.NewTicker(d.opts.ResyncInterval)
	defer t.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
			d.feed.Publish(store.Change{Kind: store.ChangeResync})
		}
	}
}

// parsePayload reads a notification "<kind>:<id>". A kind this build does
// not know (from a newer replica) is dropped: no subscriber here could
// act on it.
func parsePayload(p string) (store.Change, bool) {
	num, id, ok := strings.Cut(p, ":")
	kind, err := strconv.ParseUint(num, 10, 8)
	if !ok || err != nil || store.ChangeKind(kind).String() == "unknown" {
		return store.Change{}, false
	}
	return store.Change{Kind: store.ChangeKind(kind), ID: id}, true
}

// closeConn closes a connection that may be broken, without waiting long.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
