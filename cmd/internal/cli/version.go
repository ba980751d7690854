package cli

import "runtime/debug"

// unstamped is the version a binary built without -ldflags "-X
// main.version=…" carries.
const unstamped = "dev"

// Version is a binary's version: stamped, as the Makefile and the
// Dockerfile stamp it, else the module version the Go toolchain recorded
// (`go install …@v1.2.3` records v1.2.3), else "dev" (a build from a
// checkout records "(devel)").
func Version(stamped string) string {
	if stamped != "" && stamped != unstamped {
		return stamped
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return unstamped
	}
	return moduleVersion(info)
}

// moduleVersion is the main module's version in info, or "dev" when it
// has none ("(devel)", "").
func moduleVersion(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return unstamped
}
