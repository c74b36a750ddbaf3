// Package pgtest runs throwaway PostgreSQL clusters for tests, from the
// server binaries Debian's postgresql package installs. One cluster per
// test binary is shared ([Start]); each call gets a database of its own,
// so tests never see each other's rows or notifications.
//
// A test binary that uses it should stop the shared cluster when its tests
// end, through [Main] or [Wrap] in its TestMain. Without the binaries the
// tests are skipped, unless TOOLSTREAM_REQUIRE_POSTGRES=1 says they must
// run (CI), in which case they fail.
package pgtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv names the environment variable that turns a missing
// PostgreSQL into a test failure instead of a skip.
const RequireEnv = "TOOLSTREAM_REQUIRE_POSTGRES"

// ErrNoBinaries is returned by [NewCluster] when no PostgreSQL server
// binaries are installed.
var ErrNoBinaries = errors.New("pgtest: PostgreSQL server binaries not found (install Debian's postgresql package)")

var (
	sharedOnce sync.Once
	shared     *Cluster
	sharedErr  error
	// sharedUsed tells Stop there is something to stop.
	sharedUsed atomic.Bool
)

// Start returns the DSN of a new, empty database on the test binary's
// shared cluster, starting the cluster on first use. It skips t (or fails
// it, see [RequireEnv]) when PostgreSQL is not installed.
func Start(t testing.TB) string {
	t.Helper()
	sharedOnce.Do(func() {
		sharedUsed.Store(true)
		shared, sharedErr = NewCluster()
	})
	if sharedErr != nil {
		unavailable(t, sharedErr)
	}
	return shared.NewDB(t)
}

// Stop stops the shared cluster, if one was started, and removes its
// files. [Main] and [Wrap] call it once the tests ran.
func Stop() error {
	if !sharedUsed.Load() || shared == nil {
		return nil
	}
	return shared.Stop()
}

// TestingM is what [Wrap] wraps: *testing.M, and what goleak's
// VerifyTestMain takes.
type TestingM interface{ Run() int }

// Wrap returns m whose Run stops the shared cluster after the tests, so
// that goleak.VerifyTestMain(pgtest.Wrap(m)) sees none of its goroutines.
func Wrap(m TestingM) TestingM { return wrapped{m} }

type wrapped struct{ m TestingM }

func (w wrapped) Run() int {
	code := w.m.Run()
	if err := Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Main runs the tests, stops the shared cluster and exits: a TestMain of
// its own.
func Main(m *testing.M) { os.Exit(Wrap(m).Run()) }

// NewTestCluster starts a cluster of t's own, stopped when t ends: for a
// test that stops or breaks the server. It skips or fails t like [Start]
// when PostgreSQL is not installed.
func NewTestCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := NewCluster()
	if err != nil {
		unavailable(t, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return c
}

// unavailable skips t for a cluster that could not start, or fails it.
func unavailable(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNoBinaries) && os.Getenv(RequireEnv) != "1" {
		t.Skipf("%v; set %s=1 to fail instead", err, RequireEnv)
	}
	t.Fatalf("starting PostgreSQL: %v", err)
}

// Cluster is one running PostgreSQL server, listening only on a Unix
// socket in its own temporary directory.
type Cluster struct {
	dir  string
	port int
	bin  string      // the server binaries' directory
	cred *credential // whom the server runs as; nil: this process's user
	cmd  *exec.Cmd
	done chan error // the server's exit
	next atomic.Int64

	stopOnce sync.Once
	stopErr  error
}

// NewCluster initialises and starts a new cluster; the caller stops it.
// [ErrNoBinaries] when PostgreSQL is not installed.
func NewCluster() (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := clusterDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, port: 5432, done: make(chan error, 1)}
	if err := c.start(bin); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// DSN returns the connection string of database name on c.
func (c *Cluster) DSN(name string) string {
	return fmt.Sprintf("host=%s port=%d user=postgres dbname=%s sslmode=disable", c.dir, c.port, name)
}

// NewDB creates a new, empty database on c and returns its DSN. The
// database stays until the cluster stops.
func (c *Cluster) NewDB(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t_%d", c.next.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connecting: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	return c.DSN(name)
}

// Stop shuts the server down (fast shutdown: sessions are ended) and
// removes its directory. Calling it again returns the first result.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		if c.cmd != nil && c.cmd.Process != nil {
			_ = c.cmd.Process.Signal(os.Interrupt)
			select {
			case <-c.done:
			case <-time.After(30 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.done
			}
		}
		c.stopErr = os.RemoveAll(c.dir)
	})
	return c.stopErr
}

// clusterDir makes the cluster's directory, in the temporary directory
// when it suits, else in /tmp: the server's Unix socket lives there, and
// a socket's path is limited to about a hundred bytes; and a cluster run
// as the postgres user must reach it (a root's TMPDIR may be private).
func clusterDir() (string, error) {
	dir, err := os.MkdirTemp("", "toolstream-pg-")
	if err != nil {
		return "", err
	}
	if len(dir) <= 80 && (os.Getuid() != 0 || searchable(filepath.Dir(dir))) {
		return dir, nil
	}
	os.Remove(dir)
	return os.MkdirTemp("/tmp", "toolstream-pg-")
}

// searchable reports whether every directory from dir up to the root may
// be passed through by any user.
func searchable(dir string) bool {
	for {
		fi, err := os.Stat(dir)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return true
		}
		dir = parent
	}
}

// binDir finds the newest installed server's binaries: Debian installs
// each major version under /usr/lib/postgresql/<version>/bin.
func binDir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	version := func(p string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(p))), 64)
		return v
	}
	slices.SortFunc(matches, func(a, b string) int { return cmp.Compare(version(a), version(b)) })
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

// runAs is who the server runs as: PostgreSQL refuses to run as root, so
// a test run by root hands the cluster to the postgres user.
func runAs(dir string) (*credential, error) {
	if os.Getuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &credential{uid: uint32(uid), gid: uint32(gid)}, nil
}
