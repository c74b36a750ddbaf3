package badger

import (
	"fmt"
	"log/slog"
	"strings"

	dgbadger "github.com/dgraph-io/badger/v4"
)

// badgerLogger passes badger's warnings and errors to slog and drops its
// info and debug lines (it prints several on every open and close).
type badgerLogger struct{ log *slog.Logger }

func (l badgerLogger) Errorf(format string, args ...any) {
	l.log.Error(badgerMessage(format, args), "component", "badger")
}

func (l badgerLogger) Warningf(format string, args ...any) {
	l.log.Warn(badgerMessage(format, args), "component", "badger")
}

func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}

// badgerMessage formats a badger log line without its trailing newline.
func badgerMessage(format string, args []any) string {
	return strings.TrimRight(fmt.Sprintf(format, args...), "\n")
}

var _ dgbadger.Logger = badgerLogger{}
