package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// credential is the user the cluster's processes run as.
type credential struct{ uid, gid uint32 }

// command is bin/name with args, run as cred when set.
func command(cred *credential, dir, bin, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if cred != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: cred.uid, Gid: cred.gid}
	}
	return cmd
}

// start runs initdb in c.dir and starts the server there, waiting until
// it takes connections.
func (c *Cluster) start(bin string) error {
	cred, err := runAs(c.dir)
	if err != nil {
		return err
	}
	c.bin, c.cred = bin, cred
	initdb := command(cred, c.dir, bin, "initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return c.launch()
}

// data is the cluster's data directory.
func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// launch starts the server on the cluster's data and waits until it
// takes connections.
func (c *Cluster) launch() error {
	logFile, err := os.OpenFile(filepath.Join(c.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// Only a Unix socket in the cluster's own directory: no TCP port to
	// collide with another test binary's cluster.
	cmd := command(c.cred, c.dir, c.bin, "postgres", "-D", c.data(), "-k", c.dir, "-p", fmt.Sprint(c.port),
		"-c", "listen_addresses=", "-c", "fsync=on", "-c", "max_connections=500")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// The server dies with the test binary, even one killed by a
	// timeout: the parent-death signal fires when the thread that
	// started it ends, so that thread stays locked to the goroutine
	// that waits for the server.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	c.cmd = cmd
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			c.done <- err
			return
		}
		started <- nil
		c.done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	return c.waitReady(c.data())
}

// Kill stops the server at once, as a crash would (an immediate
// shutdown: sessions cut, no checkpoint), keeping its files; [Cluster.Restart]
// starts it again on them.
func (c *Cluster) Kill() error {
	if err := c.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		return err
	}
	exit := <-c.done
	c.done <- exit // for Stop, unless Restart takes it
	return nil
}

// Restart starts a server killed by [Cluster.Kill] again, on its files,
// and waits until it takes connections.
func (c *Cluster) Restart() error {
	<-c.done // the killed server's exit
	return c.launch()
}

// waitReady polls until the server takes connections, or it exited.
func (c *Cluster) waitReady(data string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err == nil {
			conn.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		select {
		case exit := <-c.done:
			c.done <- exit // for Stop
			logText, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
			return fmt.Errorf("postgres exited (%v) before taking connections:\n%s", exit, logText)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres in %s not ready after a minute: %w", data, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
