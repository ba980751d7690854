package main

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// imageChart is a chart whose template composes its container's image
// from two values keys, as `helm create` writes it; tag is the line 3
// value of values.yaml.
func imageChart(tag string) map[string]string {
	return map[string]string{
		".prodready.yaml":   testconfig.OnlyRule("image-tag-mutable"),
		"chart/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"chart/values.yaml": "image:\n  repository: ghcr.io/acme/web\n  tag: " + tag + "\n",
		"chart/templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: \"{{ .Values.image.repository }}:{{ .Values.image.tag }}\"\n",
	}
}

// TestServeCommentsOnTheValuesLineAPullRequestChanges runs serve as a
// process on a pull request that sets the chart's image tag to latest in
// values.yaml. The template line composes the image from two keys, so
// `check` reports it there; the review comments where the author changed
// it, on the tag's line (it was an annotation on the template line, which
// the pull request does not change), and names the template line.
func TestServeCommentsOnTheValuesLineAPullRequestChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	cm := onlyComment(t, reviewOpened(t, imageChart(`"1.27"`), imageChart("latest")))
	if cm.Path != "chart/values.yaml" || cm.Line != 3 ||
		!strings.Contains(cm.Body, `uses "ghcr.io/acme/web:latest"`) ||
		!strings.Contains(cm.Body, "(line 12 of `chart/templates/deployment.yaml` writes it, with this line's value in it)") {
		t.Errorf("comment = %s:%d\n%s\nwant one at chart/values.yaml:3 that names the template line", cm.Path, cm.Line, cm.Body)
	}
}

// TestServeGitLabCommentsOnTheValuesLineAMergeRequestChanges is
// TestServeCommentsOnTheValuesLineAPullRequestChanges against the fake
// GitLab: the merge request's one diff thread is on the tag's new line of
// values.yaml.
func TestServeGitLabCommentsOnTheValuesLineAMergeRequestChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	threads := gitLabReviewThreads(t, "gitlab-valuesparts", 7, 501, imageChart(`"1.27"`), imageChart("latest"))
	if len(threads) != 1 || !strings.HasPrefix(threads[0], "chart/values.yaml:3\n") || !strings.Contains(threads[0], "writes it, with this line's value in it") {
		t.Errorf("want one diff thread at chart/values.yaml:3 that names the template line; got %q", threads)
	}
}

// TestCheckHonoursAnIgnoreOnTheValuesLineOfAComposedImage runs check as a
// process on that chart: the finding is at the template line, and an
// ignore comment on the tag's values line, where a review comments on it,
// silences it as one on the template line does.
func TestCheckHonoursAnIgnoreOnTheValuesLineOfAComposedImage(t *testing.T) {
	dir := writeRepo(t, imageChart("latest"))
	fs, _ := checkJSON(t, dir, "chart")
	if len(fs) != 1 || fs[0].File != "chart/templates/deployment.yaml" || fs[0].Line != 12 {
		t.Fatalf("findings = %+v, want image-tag-mutable at chart/templates/deployment.yaml:12", fs)
	}
	dir = writeRepo(t, imageChart("latest # prodready:ignore image-tag-mutable the cluster pins it by digest"))
	if fs, _ := checkJSON(t, dir, "chart"); len(fs) != 0 {
		t.Errorf("with the ignore on the tag's line: %+v, want none", fs)
	}
}
