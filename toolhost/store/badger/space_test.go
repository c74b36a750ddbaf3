package badger_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// tmpfs mounts a tmpfs of size (mount's spelling: "8m") on a new directory
// and unmounts it when the test ends; it skips the test where mounting is
// not allowed (not root, no tmpfs).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	// Registered after TempDir's cleanup, so it runs before it.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes zeros to a file in dir until the filesystem is full, as
// `dd if=/dev/zero of=dir/fill` does, and returns the file's path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fill")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			return path // ENOSPC
		}
	}
}

// TestFullDiskRefusesWrites: on a full filesystem a write fails with
// ErrNoSpace — before, badger's copy into its mapped log took SIGBUS and
// the process died — Ready says why, the failure is counted, and the store
// writes again once space is back.
func TestFullDiskRefusesWrites(t *testing.T) {
	dir := tmpfs(t, "8m")
	db := open(t, config.Storage{Path: filepath.Join(dir, "data")}, badger.Options{MinFree: 1 << 20})
	ctx := t.Context()
	if err := db.StartCall(ctx, store.CallRecord{ID: "tcr_before", Tool: "t"}, nil); err != nil {
		t.Fatalf("StartCall with room: %v", err)
	}
	if err := db.Ready(); err != nil {
		t.Fatalf("Ready with room: %v", err)
	}

	filler := fill(t, dir)
	err := db.StartCall(ctx, store.CallRecord{ID: "tcr_full", Tool: "t"}, nil)
	if !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("StartCall on a full disk = %v, want ErrNoSpace", err)
	}
	if err := db.Ready(); !errors.Is(err, store.ErrNoSpace) {
		t.Errorf("Ready on a full disk = %v, want ErrNoSpace", err)
	}
	if n := db.WriteFailures(); n != 1 {
		t.Errorf("WriteFailures = %d, want 1", n)
	}
	if _, ok, _ := db.Call(ctx, "tcr_full"); ok {
		t.Error("the refused record was written")
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := db.StartCall(ctx, store.CallRecord{ID: "tcr_after", Tool: "t"}, nil); err != nil {
		t.Fatalf("StartCall once space is back: %v", err)
	}
	// Still unready for a while: a write failed a moment ago.
	if err := db.Ready(); !errors.Is(err, store.ErrWriteFailed) {
		t.Errorf("Ready just after a failed write = %v, want ErrWriteFailed", err)
	}
}

// TestOpenOnFullDisk: Open on a full filesystem fails with ErrNoSpace and
// a message saying what to do, where badger.Open died of SIGBUS replaying
// its log.
func TestOpenOnFullDisk(t *testing.T) {
	dir := tmpfs(t, "4m")
	path := filepath.Join(dir, "data")
	db := open(t, config.Storage{Path: path}, badger.Options{MinFree: 1 << 20})
	db.Close()
	fill(t, dir)
	_, err := badger.Open(config.Storage{Path: path}, badger.Options{MinFree: 1 << 20})
	if !errors.Is(err, store.ErrNoSpace) {
		t.Fatalf("Open on a full disk = %v, want ErrNoSpace", err)
	}
	t.Log(err)
}
