package report

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
	"github.com/prodready/prodready/internal/inert"
)

// TestStepSummaryStaysInert: the Actions step summary of findings on
// hostile manifests (see checkstest.Hostile) mentions, references, links
// and shows HTML of nothing, and no line of it starts with / or a heading
// the report does not write.
func TestStepSummaryStaysInert(t *testing.T) {
	fs := checkstest.Hostile(t, catalog.Default())
	var b strings.Builder
	skipped := []NotChecked{{Path: checkstest.HostileValue, Reason: checkstest.HostileValue}}
	var rows summaryRows
	rows.add(fs)
	if err := writeStepSummary(&b, rows, skipped, "2 errors", checkstest.HostileValue); err != nil {
		t.Fatal(err)
	}
	if leaks := inert.Leaks(b.String()); leaks != nil {
		t.Errorf("step summary leaks: %s\n%s", strings.Join(leaks, "\n"), b.String())
	}
}
