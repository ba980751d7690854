package loggingstate_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsLoggingState pins the logging and state rules on
// real manifests.
func TestCorpusNoFalseAlarmsLoggingState(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/fluentd-elasticsearch-deamonset.yaml", Kind: "DaemonSet", Name: "fluentd-elasticsearch", Rule: "logging-sidecar",
			Why: "a node-level DaemonSet is the recommended way to ship logs"},
		{File: "gitops-istio/apps/backend/hpa.yaml", Kind: "HorizontalPodAutoscaler", Name: "backend", Rule: "hpa-target-missing",
			Why: "its Deployment is in another file of the same folder"},
		{File: "gke-samples/quickstarts/wordpress-persistent-disks/mysql.yaml", Kind: "Deployment", Name: "mysql", Rule: "rwo-volume-shared-by-replicas",
			Why: "one replica mounting a ReadWriteOnce claim is fine"},
		{File: "gke-samples/quickstarts/wordpress-persistent-disks/wordpress.yaml", Kind: "Deployment", Name: "wordpress", Rule: "rwo-volume-shared-by-replicas",
			Why: "replicas: 1; the HPA named wordpress that made it look like 2 belongs to an unrelated sample (cost-optimization/…), not to this deployment unit"},
		{File: "gitops-istio/apps/backend/hpa.yaml", Kind: "HorizontalPodAutoscaler", Name: "backend", Rule: "hpa-min-replicas-too-low", Fire: true,
			Why: "minReplicas: 1"},
	})
}
