package checks_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/prodready/prodready/checks"
)

// TestMapSelectorMatchesAgreesWithLabels checks the hand loop against the
// selector apimachinery builds from the same map, on every pairing of a set
// of selectors and label sets (an empty selector selects nothing, as for a
// Service).
func TestMapSelectorMatchesAgreesWithLabels(t *testing.T) {
	sets := []map[string]string{
		nil, {}, {"app": "web"}, {"app": "web", "tier": "front"}, {"app": "api"}, {"app": ""}, {"tier": "front"},
		{"app.kubernetes.io/name": "web", "app": "web"}, {"app": "web", "tier": "back", "x": "y"},
	}
	for _, sel := range sets {
		for _, lbls := range sets {
			want := len(sel) > 0 && labels.SelectorFromSet(sel).Matches(labels.Set(lbls))
			if got := checks.MapSelectorMatches(sel, lbls); got != want {
				t.Errorf("MapSelectorMatches(%v, %v) = %v, apimachinery says %v", sel, lbls, got, want)
			}
		}
	}
}
