package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersion: a stamped version wins; else the module version the
// toolchain recorded; "dev" only when there is none.
func TestVersion(t *testing.T) {
	if got := Version("v1.4.0"); got != "v1.4.0" {
		t.Errorf("Version(stamped) = %q", got)
	}
	for recorded, want := range map[string]string{"v1.2.3": "v1.2.3", "v0.0.0-20260101000000-abcdef123456": "v0.0.0-20260101000000-abcdef123456", "(devel)": "dev", "": "dev"} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/prodready/prodready", Version: recorded}}
		if got := moduleVersion(info); got != want {
			t.Errorf("moduleVersion(%q) = %q, want %q", recorded, got, want)
		}
	}
	// A test binary records no module version: unstamped, it says dev.
	if got := Version("dev"); got != "dev" {
		t.Errorf("Version(dev) in a test binary = %q, want dev", got)
	}
}
