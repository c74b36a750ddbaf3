package badger_test

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// BenchmarkStartCall measures the price of the synced commit (see
// Durability in the package doc) on the disk under the test's TempDir.
func BenchmarkStartCall(b *testing.B) {
	db, err := badger.Open(config.Storage{Path: b.TempDir()}, badger.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	i := 0
	for b.Loop() {
		i++
		if err := store.Checked(db).StartCall(b.Context(), store.CallRecord{ID: fmt.Sprint("tcr_", i), Tool: "t"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
