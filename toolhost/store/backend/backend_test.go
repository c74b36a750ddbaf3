package backend_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
	"github.com/toolstream/toolstream/toolhost/store/backend"
	"github.com/toolstream/toolstream/toolhost/store/badger"
	"github.com/toolstream/toolstream/toolhost/store/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(pgtest.Wrap(m)) }

func TestNewInstance(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^inst_[a-z0-9]{16}$`)
	a, b := backend.NewInstance(), backend.NewInstance()
	if !re.MatchString(a) || !store.ValidName(a) || a == b {
		t.Errorf("NewInstance = %q, %q; want two different inst_ + 16 alnum", a, b)
	}
}

func TestOpenBackends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		backend string
		wantErr string
	}{
		{"", ""},
		{config.BackendBadger, ""},
		{config.BackendPostgres, "opening storage: storage.postgres.dsn is empty"},
		{"sqlite", `storage.backend "sqlite" is unknown (want badger or postgres)`},
	} {
		s, instance, err := backend.Open(t.Context(), config.Storage{Backend: tc.backend, InMemory: true}, backend.Options{})
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Open(%q) = %v, want %q", tc.backend, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Open(%q): %v", tc.backend, err)
		}
		if !strings.HasPrefix(instance, "inst_") {
			t.Errorf("instance = %q", instance)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestOpenRecovers: a call an earlier process left started is
// outcome_unknown once the next process opened the directory.
func TestOpenRecovers(t *testing.T) {
	t.Parallel()
	cfg := config.Storage{Backend: config.BackendBadger, Path: t.TempDir()}
	old, err := badger.Open(cfg, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Checked(old).StartCall(t.Context(), store.CallRecord{ID: "tcr_1", Tool: "t", Instance: "inst_old"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	s, _, err := backend.Open(t.Context(), cfg, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rec, ok, err := s.Call(t.Context(), "tcr_1"); err != nil || !ok || rec.Status != store.StatusOutcomeUnknown {
		t.Errorf("Call after Open = %+v, %v, %v; want outcome_unknown", rec, ok, err)
	}

	// The directory is now held: a second process is told what to do.
	_, _, err = backend.Open(t.Context(), cfg, backend.Options{})
	if !errors.Is(err, badger.ErrLocked) || !strings.Contains(err.Error(), "stop it or set storage.path to another directory") {
		t.Errorf("second Open = %v, want the locked-directory message", err)
	}
}

// TestOpenPostgres: a replica that opens the database resolves what a
// stopped replica left started, and leaves a live one's alone.
func TestOpenPostgres(t *testing.T) {
	t.Parallel()
	cfg := config.Storage{Backend: config.BackendPostgres}
	cfg.Postgres.DSN, cfg.Postgres.MaxConns = config.Secret(pgtest.Start(t)), 4

	live, liveID, err := backend.Open(t.Context(), cfg, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	for id, inst := range map[string]string{"tcr_live": liveID, "tcr_gone": "inst_gone"} {
		if err := live.StartCall(t.Context(), store.CallRecord{ID: id, Tool: "t", Instance: inst}, nil); err != nil {
			t.Fatal(err)
		}
	}

	s, instance, err := backend.Open(t.Context(), cfg, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if instance == liveID {
		t.Fatalf("two replicas got instance %s", instance)
	}
	for id, want := range map[string]string{"tcr_live": store.StatusStarted, "tcr_gone": store.StatusOutcomeUnknown} {
		if rec, ok, err := s.Call(t.Context(), id); err != nil || !ok || rec.Status != want {
			t.Errorf("Call(%s) after the second Open = %+v, %v, %v; want %s", id, rec, ok, err, want)
		}
	}
}
