package main

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// twoOverlays is a base built by two overlays, each with its name prefix
// and its replicas: prod's replicas are prodReplicas, staging's 2; the
// base's image is image.
func twoOverlays(prodReplicas, image string) map[string]string {
	patch := func(n string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + n + "\n"
	}
	return map[string]string{
		".prodready.yaml":                   testconfig.OnlyRule("spread-missing"),
		"deploy/base/kustomization.yaml":    "resources:\n- deployment.yaml\n",
		"deploy/prod/kustomization.yaml":    "namePrefix: prod-\nresources:\n- ../base\npatches:\n- path: replicas.yaml\n",
		"deploy/prod/replicas.yaml":         patch(prodReplicas),
		"deploy/staging/kustomization.yaml": "namePrefix: staging-\nresources:\n- ../base\npatches:\n- path: replicas.yaml\n",
		"deploy/staging/replicas.yaml":      patch("2"),
		"deploy/base/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n" +
			"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: " + image + "\n",
	}
}

// TestServeKeepsAFindingOverlaysShareWhenOneOverlayLosesIt runs serve as
// a process on a pull request that takes prod's replicas from 3 to 1 and
// changes the base's image. At
// base both overlays' Deployments lack spreading, one finding at the
// base's line for both; at head only staging's does. The review reports
// nothing new and prod's finding fixed (it reported staging's as new, the
// merged finding at base being prod's, and so could fail a check on an
// error the pull request did not bring).
func TestServeKeepsAFindingOverlaysShareWhenOneOverlayLosesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	fake := reviewOpened(t, twoOverlays("3", "nginx:1.27"), twoOverlays("1", "nginx:1.28"))
	run, _ := runOn(fake, headSHA(0))
	var comments int
	for _, rv := range fake.Reviews("acme", "web") {
		comments += len(rv.Comments)
	}
	if run.Title != "No new findings" || comments != 0 || !strings.Contains(run.Summary, "`spread-missing` on Deployment `prod-web`") ||
		strings.Contains(run.Summary, "staging-web`") && strings.Contains(run.Summary, "### New") {
		t.Errorf("check run %q, %d comments, summary:\n%s\nwant nothing new and prod-web's spread-missing fixed", run.Title, comments, run.Summary)
	}
}
