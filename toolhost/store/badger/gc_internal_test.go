package badger

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

// TestGCPass runs one value-log GC pass by hand over a value log with
// overwritten (garbage) values: it must end cleanly, on ErrNoRewrite or
// after rewriting, never with an error.
func TestGCPass(t *testing.T) {
	t.Parallel()
	d, err := Open(config.Storage{Path: t.TempDir(), TurnRetention: time.Hour}, Options{GCInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	big := strings.Repeat("r", valueThreshold*2)
	for i := range 30 {
		rec := store.TurnRecord{
			ID:       "chatcmpl-gc",
			Keys:     []string{"fp:gc"},
			Messages: []json.RawMessage{json.RawMessage(strconv.Quote(big + strconv.Itoa(i)))},
		}
		if err := store.Checked(d).SaveTurn(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.gcPass(); err != nil {
		t.Errorf("gcPass = %v, want nil", err)
	}
	if _, ok, err := d.FindTurn(t.Context(), "fp:gc"); err != nil || !ok {
		t.Errorf("FindTurn after GC = %v, %v", ok, err)
	}
}
