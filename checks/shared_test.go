package checks_test

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir is the shared test data (corpus, peer fixtures, payloads) that
// sits beside the repository in development and CI, not in a user's clone.
const sharedDir = "../../shared"

// needShared returns the path of a folder under ../shared, or skips the
// test with a clear message when it is absent.
func needShared(t testing.TB, sub string) string {
	t.Helper()
	p := filepath.Join(sharedDir, sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("../shared/%s not present (it sits beside the repository in development and CI only): %v", sub, err)
	}
	return p
}
