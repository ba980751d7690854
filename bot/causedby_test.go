package bot

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
)

// TestCausedByNamesTheChangedPart checks which changes a finding new in a
// file the pull request does not touch is said to be caused by: the
// changed file one of its parts is in (the values line its value is
// composed from) alone; else the changed files holding objects of its
// namespace; else every changed file.
func TestCausedByNamesTheChangedPart(t *testing.T) {
	changed := []ChangedFile{{Path: "a/cm.yaml", Status: "modified"}, {Path: "web/values.yaml", Status: "modified"}, {Path: "b/new.yaml", Status: "added"}}
	ns := map[string]map[string]bool{"default": {"a/cm.yaml": true}}
	f := checks.Finding{File: "web/templates/deployment.yaml", Object: checks.ObjectRef{Namespace: "default"}}
	for _, tc := range []struct {
		parts []checks.Place
		ns    map[string]map[string]bool
		want  string
	}{
		{[]checks.Place{{File: "web/values.yaml", Line: 2}}, ns, "caused by the change to `web/values.yaml`)"},
		{nil, ns, "caused by the change to `a/cm.yaml`)"},
		{nil, nil, "caused by the change to `a/cm.yaml`, the change to `web/values.yaml`, adding `b/new.yaml`)"},
	} {
		f.Parts = tc.parts
		if got := causedBy(f, changed, tc.ns); !strings.HasSuffix(got, tc.want) {
			t.Errorf("parts %v: %q, want it to end %q", tc.parts, got, tc.want)
		}
	}
}
