package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// componentsRepo is an overlay at the repository's root that uses one
// kustomize Component and leaves two unused (microservices-demo keeps
// nine such); data is the ConfigMap's value and the unused components'.
func componentsRepo(data string) map[string]string {
	component := "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n- patch: |-\n    apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata: {name: a}\n    data: {x: " + data + "}\n"
	return map[string]string{
		"kustomization.yaml":                   "resources:\n- app/cm.yaml\ncomponents:\n- components/used\n",
		"app/cm.yaml":                          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: " + data + "}\n",
		"components/used/kustomization.yaml":   component,
		"components/unused/kustomization.yaml": component,
		"components/other/kustomization.yaml":  component,
	}
}

// TestCheckSaysAComponentNoOverlayUsesIsNotChecked runs check as a
// process on a repository whose overlay leaves two Components unused:
// no overlay builds them, so their patches are not checked, and every
// output says so; the used one is checked through its overlay.
func TestCheckSaysAComponentNoOverlayUsesIsNotChecked(t *testing.T) {
	dir := writeRepo(t, componentsRepo("y"))
	stdout, stderr, _ := runCLI(t, dir, "check", "-o", "json", ".")
	var out struct {
		Summary struct {
			NotChecked []struct{ Path, Reason string }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s\n%s", err, stdout, stderr)
	}
	var unused []string
	for _, n := range out.Summary.NotChecked {
		if strings.Contains(n.Reason, "a kustomize Component that no overlay checked here names") {
			unused = append(unused, n.Path)
		}
	}
	if want := []string{"components/other/kustomization.yaml", "components/unused/kustomization.yaml"}; !slices.Equal(unused, want) {
		t.Errorf("components said not checked = %q, want %q:\n%s", unused, want, stdout)
	}
}

// TestServeNamesAnUnusedComponentOnlyWhenThePullRequestChangesIt runs
// serve as a process on a pull request that changes the overlay's
// ConfigMap and one of the two unused Components: the check run's summary
// says the changed one is not checked, and not the other, which the pull
// request does not touch.
func TestServeNamesAnUnusedComponentOnlyWhenThePullRequestChangesIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	base, head := componentsRepo("y"), componentsRepo("y")
	head["app/cm.yaml"] = strings.Replace(head["app/cm.yaml"], "x: y", "x: z", 1)
	head["components/unused/kustomization.yaml"] = strings.Replace(head["components/unused/kustomization.yaml"], "x: y", "x: z", 1)
	fake := reviewOpened(t, base, head)
	summary := fake.CheckRuns("acme", "web")[0].Summary
	if !strings.Contains(summary, "components/unused/kustomization.yaml") || strings.Contains(summary, "components/other/kustomization.yaml") {
		t.Errorf("summary:\n%s\nwant components/unused named as not checked, and not components/other", summary)
	}
}
