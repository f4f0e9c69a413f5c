package main

import "runtime/debug"

// versionLine is what `optalloc version` prints: Version, then the commit
// the binary was built from when Go's build information has it (a build
// from a git checkout), with "+modified" for uncommitted changes.
func versionLine() string {
	return "optalloc " + Version + buildCommit(debug.ReadBuildInfo())
}

// buildCommit is " (commit C)" from the build settings, or "".
func buildCommit(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return ""
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	return " (commit " + rev + modified + ")"
}
