package labels_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsLabels pins the label rules on real manifests.
func TestCorpusNoFalseAlarmsLabels(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "kube-prometheus/manifests/grafana-deployment.yaml", Kind: "Deployment", Name: "grafana", Rule: "template-labels-not-propagated",
			Why: "every app.kubernetes.io label of the Deployment is on its pod template"},
		{File: "argo-cd/manifests/install.yaml", Kind: "Deployment", Name: "argocd-server", Rule: "template-labels-not-propagated", Fire: true,
			Why: "component and part-of are on the Deployment only"},
		{File: "kube-prometheus/manifests/grafana-deployment.yaml", Kind: "Deployment", Name: "grafana", Rule: "recommended-labels-missing", Fire: true,
			Why: "instance and managed-by are missing on the pods"},
		{File: "kube-prometheus/manifests/grafana-service.yaml", Kind: "Service", Name: "grafana", Rule: "recommended-labels-missing",
			Why: "only workloads' pod templates are checked"},
	})
}
