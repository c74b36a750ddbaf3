package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionFormat: the version number is toolstream's own, whatever the
// build recorded — also nothing at all, as with -buildvcs=false or a build
// from a clone — with the commit when the build knows it.
func TestVersionFormat(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name          string
		bi            *debug.BuildInfo
		version, want string
	}{
		{"no build info", nil, Version, "unknown (built without VCS information)"},
		{"-buildvcs=false from a clone", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			Version, "unknown (built without VCS information)"},
		{"a clone with git", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("a14b930fdc8f", "false")},
			Version, "a14b930fdc8f"},
		{"a modified clone", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("a14b930fdc8f", "true")},
			Version, "a14b930fdc8f (modified)"},
		{"a clone, as Go 1.24 stamps it", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261126142000-a14b930fdc8f+dirty"}, Settings: vcs("a14b930fdc8f0123456789abcdef0123456789ab", "true")},
			Version, "a14b930fdc8f0123456789abcdef0123456789ab (modified)"},
		{"go install of the release tag", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v" + Version}},
			Version, "unknown (built without VCS information)"},
		{"go install @latest between releases", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261126142000-a14b930fdc8f"}},
			Version + " (module v0.0.0-20261126142000-a14b930fdc8f)", "unknown (built without VCS information)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := readBuild(tc.bi)
			if got := b.versionString(); got != tc.version {
				t.Errorf("version %q, want %q", got, tc.version)
			}
			if got := b.commitString(); got != tc.want {
				t.Errorf("commit %q, want %q", got, tc.want)
			}
		})
	}
}

// TestVersionCommand: `toolstream version` of this test binary, built
// without VCS information (the tests run with whatever GOFLAGS say), still
// names the version.
func TestVersionCommand(t *testing.T) {
	code, out, _ := runCmd("version")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitOK || len(lines) != 3 || !strings.HasPrefix(lines[0], "toolstream "+Version) || !strings.HasPrefix(lines[1], "commit ") || !strings.HasPrefix(lines[2], "go1.") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}
