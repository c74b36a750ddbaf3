package toolhost

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
)

// TestGCPass runs one value-log GC pass by hand over a value log with
// overwritten (garbage) values: it must end cleanly, on ErrNoRewrite or
// after rewriting, never with an error.
func TestGCPass(t *testing.T) {
	t.Parallel()
	s, err := OpenStore(config.Storage{Path: t.TempDir(), TurnRetention: time.Hour},
		StoreOptions{GCInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	big := strings.Repeat("r", storeValueThreshold*2)
	for i := range 30 {
		rec := TurnRecord{
			ID:       "chatcmpl-gc",
			Keys:     []string{"fp:gc"},
			Messages: []json.RawMessage{json.RawMessage(strconv.Quote(big + strconv.Itoa(i)))},
		}
		if err := s.SaveTurn(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.gcPass(); err != nil {
		t.Errorf("gcPass = %v, want nil", err)
	}
	if _, ok, err := s.FindTurn(t.Context(), "fp:gc"); err != nil || !ok {
		t.Errorf("FindTurn after GC = %v, %v", ok, err)
	}
}
