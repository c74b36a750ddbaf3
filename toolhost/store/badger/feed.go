package badger

import "github.com/toolstream/toolstream/toolhost/store"

// Subscribe calls f with every change this store commits, until stop or
// Close ([store.ChangeFeed.Subscribe]). An embedded database has one writer,
// this process, so the feed never needs a resync.
func (d *DB) Subscribe(f func(store.Change)) (stop func()) {
	return d.feed.Subscribe(f)
}

// changed publishes a change once its transaction committed (err nil).
func (d *DB) changed(err error, kind store.ChangeKind, id string) {
	if err == nil {
		d.feed.Publish(store.Change{Kind: kind, ID: id})
	}
}
