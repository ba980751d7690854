package main

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/testconfig"
)

// TestCheckKeepsAnAllInOneManifestsReplicasBesideItsOverlay runs check as
// a process on a repository that holds an all-in-one manifest beside the
// kustomize base it was built from (as aks-store-demo does), the base
// raised to three replicas. The manifest's Deployment of the same name
// still runs one: its replicas-too-few stays. The base's render counted
// as a patch of it (another object of its kind and name with other
// replicas), and a pull request raising the base's replicas reported the
// manifest's finding as fixed. So did a kustomization's replicas: entry
// of that name, which builds the base, not the manifest.
func TestCheckKeepsAnAllInOneManifestsReplicasBesideItsOverlay(t *testing.T) {
	deployment := func(replicas string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas + "\n" +
			"  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n" +
			"      - name: web\n        image: ghcr.io/acme/web:1.0\n        ports: [{containerPort: 8080}]\n"
	}
	const service = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n"
	dir := writeRepo(t, map[string]string{
		".prodready.yaml":              testconfig.OnlyRule("replicas-too-few"),
		"all-in-one.yaml":              deployment("1") + service,
		"kustomize/kustomization.yaml": "resources:\n- web.yaml\n",
		"kustomize/web.yaml":           deployment("3") + service,
	})
	fs, _ := checkJSON(t, dir, ".")
	if len(fs) != 1 || fs[0].File != "all-in-one.yaml" || fs[0].Line != 6 || !strings.Contains(fs[0].Message, "replicas is 1") {
		t.Errorf("findings = %+v, want replicas-too-few at all-in-one.yaml:6", fs)
	}
	// The base at one replica, raised by its kustomization's replicas:
	// entry: that entry names the manifest's Deployment too, but does
	// not build it.
	dir = writeRepo(t, map[string]string{
		".prodready.yaml":              testconfig.OnlyRule("replicas-too-few"),
		"all-in-one.yaml":              deployment("1") + service,
		"kustomize/kustomization.yaml": "resources:\n- web.yaml\nreplicas:\n- name: web\n  count: 3\n",
		"kustomize/web.yaml":           deployment("1") + service,
	})
	fs, _ = checkJSON(t, dir, ".")
	if len(fs) != 1 || fs[0].File != "all-in-one.yaml" || fs[0].Line != 6 {
		t.Errorf("with a replicas: entry: findings = %+v, want replicas-too-few at all-in-one.yaml:6", fs)
	}
}
