package badger_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/badger"
)

// childEnv names the directory the child process of
// TestStartCallSurvivesKill opens; TestMain runs the child when it is set.
const childEnv = "TOOLSTREAM_BADGER_KILL_CHILD"

// TestStartCallSurvivesKill pins the durability promise of StartCall
// against a process crash: a child process starts a call, says so, and is
// killed with SIGKILL without closing anything; the next process on the
// directory finds the call started and recovers it.
func TestStartCallSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "started\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q, %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // "signal: killed"

	db := open(t, config.Storage{Path: dir}, badger.Options{})
	got, ok, err := db.Call(t.Context(), "tcr_killed")
	if err != nil || !ok || got.Status != store.StatusStarted {
		t.Fatalf("Call after SIGKILL = %+v, %v, %v; want the started record", got, ok, err)
	}
	rec, err := db.Recover(t.Context(), "inst_next")
	if err != nil || rec.Calls != 1 {
		t.Errorf("Recover = %+v, %v; want the killed call", rec, err)
	}
}

// runChild is the child of TestStartCallSurvivesKill: it starts a call,
// prints "started" and waits to be killed (or for stdin to close).
func runChild() int {
	db, err := badger.Open(config.Storage{Path: os.Getenv(childEnv)}, badger.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rec := store.CallRecord{ID: "tcr_killed", Tool: "t", Instance: "inst_killed"}
	if err := store.Checked(db).StartCall(ctx, rec, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("started")
	io.Copy(io.Discard, os.Stdin)
	return 0
}
