package apicluster_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/checks/rules/apicluster"
)

// TestFixtures checks every rule of the section against its fixture folder.
func TestFixtures(t *testing.T) { checkstest.Run(t, catalog.Default(), apicluster.Rules()) }
