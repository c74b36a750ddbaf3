package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Version is toolstream's own release number, bumped with each release. It
// is a constant because what `go build` stamps is not enough: a build from
// a clone says "(devel)", and one with -buildvcs=false (GOFLAGS may set
// it, Docker builds often do) has no commit either — a bug report would
// then name no version at all.
const Version = "0.9.0"

// build is what the binary knows of how it was made.
type build struct {
	// module is the module version `go install …@version` stamps; empty
	// for a build from a clone.
	module string
	// commit is the VCS revision, empty when the build did not record
	// one; modified says the work tree had changes.
	commit   string
	modified bool
	goVer    string
}

// readBuild reads bi, as [debug.ReadBuildInfo] returns it (nil when the
// binary has none).
func readBuild(bi *debug.BuildInfo) build {
	b := build{goVer: "unknown"}
	if bi == nil {
		return b
	}
	b.goVer = bi.GoVersion
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.module = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.commit = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// currentBuild is readBuild of this binary.
func currentBuild() build {
	bi, _ := debug.ReadBuildInfo()
	return readBuild(bi)
}

// versionString is the version with the module version when it says more:
// `go install …@latest` between releases stamps a pseudo-version naming
// the commit it fetched, and no vcs.revision. A build in a clone stamps a
// pseudo-version too (Go 1.24), which only repeats the commit line.
func (b build) versionString() string {
	if b.module == "" || b.module == "v"+Version || b.repeatsCommit() {
		return Version
	}
	return Version + " (module " + b.module + ")"
}

// repeatsCommit reports whether the module version is the pseudo-version
// of the recorded commit, "v0.0.0-20261126143906-50e1065341fa[+dirty]".
func (b build) repeatsCommit() bool {
	if len(b.commit) < 12 {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(b.module, "+dirty"), "-"+b.commit[:12])
}

// commitString is the revision, marked when the tree was modified, or
// "unknown" with the reason.
func (b build) commitString() string {
	switch {
	case b.commit == "":
		return "unknown (built without VCS information)"
	case b.modified:
		return b.commit + " (modified)"
	}
	return b.commit
}

// version prints the version, the commit and the Go version.
func version(stdout io.Writer) int {
	b := currentBuild()
	fmt.Fprintf(stdout, "toolstream %s\ncommit %s\n%s\n", b.versionString(), b.commitString(), b.goVer)
	return exitOK
}
