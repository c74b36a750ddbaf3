package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version prints what `go build` stamped into the binary: no -ldflags
// needed, a release build can still override.
func version(stdout io.Writer) int {
	v, commit, modified, goVersion := "(devel)", "unknown", false, "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += " (modified)"
	}
	fmt.Fprintf(stdout, "toolstream %s\ncommit %s\n%s\n", v, commit, goVersion)
	return exitOK
}
