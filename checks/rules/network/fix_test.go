package network_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestFixesResolveNetworkAccess applies every fix that these rules
// suggest on their fixtures, checks again, and requires that the finding is
// gone and that the object still decodes strictly (the API server accepts it).
func TestFixesResolveNetworkAccess(t *testing.T) {
	checkstest.FixesResolve(t, catalog.Default(), []string{"api-removed", "api-deprecated", "job-ttl-missing", "apiserver-insecure-flag", "apiserver-audit-log"})
}
