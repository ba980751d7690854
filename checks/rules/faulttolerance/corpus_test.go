package faulttolerance_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsHealth lists corpus objects that naive readings
// of the health rules flagged and that are fine.
func TestCorpusNoFalseAlarmsHealth(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "gke-samples/networking/dpv2-observability/hubble-ui-std.yaml", Kind: "Deployment", Name: "hubble-ui", Rule: "readiness-probe-missing", Container: "backend",
			Why: "the Service targets the frontend container's port; the backend sidecar gets no Service traffic"},
		{File: "gke-samples/cost-optimization/gke-shift-left-cost/samples/k8s-cost-estimator-github/wordpress/mysql-statefulset.yaml", Kind: "StatefulSet", Name: "mysql", Rule: "readiness-probe-missing", Container: "xtrabackup",
			Why: "the xtrabackup sidecar's port is not a target of the mysql Service"},
		{File: "istio-samples/samples/extauthz/local-ext-authz.yaml", Kind: "Deployment", Name: "httpbin", Rule: "readiness-probe-missing", Container: "ext-authz",
			Why: "the ext-authz sidecar is reached over localhost, no Service targets its ports"},
		{File: "kyverno-install/v1.15.0/config/install-latest-testing.yaml", Kind: "Deployment", Name: "kyverno-background-controller", Rule: "readiness-probe-missing",
			Why: "its only Service (…-metrics, port metrics-port) is for scraping, not traffic"},
		{File: "cert-manager-static/cert-manager.yaml", Kind: "Deployment", Name: "cert-manager", Rule: "readiness-probe-missing",
			Why: "its Service only exposes tcp-prometheus-servicemonitor"},
		{File: "gke-samples/autopilot/daemonset-best-practices/deployment.yaml", Kind: "Deployment", Name: "hello-app", Rule: "readiness-probe-missing",
			Why: "the Service that matches its labels belongs to another example (gke-samples/quickstarts/languages/), no namespace"},
	})
}

// TestCorpusNoFalseAlarmsFaultTolerance lists corpus objects that naive
// readings of the fault-tolerance rules flagged and that are fine, and
// single-instance datastores, whose replicas-too-few finding stands with
// no fix: one more replica would be another database, not a copy.
func TestCorpusNoFalseAlarmsFaultTolerance(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "kyverno-install/v1.15.0/config/install-latest-testing.yaml", Kind: "Deployment", Name: "kyverno-background-controller", Rule: "replicas-too-few",
			Why: "a controller whose only Service exposes metrics: not serving"},
		{File: "kube-prometheus/manifests/prometheusOperator-deployment.yaml", Kind: "Deployment", Name: "prometheus-operator", Rule: "replicas-too-few",
			Why: "an operator without leader election (three replicas would fight); its Service's port is the one a ServiceMonitor scrapes"},
		{File: "kube-prometheus/manifests/kubeStateMetrics-deployment.yaml", Kind: "Deployment", Name: "kube-state-metrics", Rule: "replicas-too-few",
			Why: "its Service's ports are all scraped by its ServiceMonitor: a metrics endpoint, not traffic"},
		{File: "argo-cd/manifests/install.yaml", Kind: "Deployment", Name: "argocd-applicationset-controller", Rule: "replicas-too-few",
			Why: "leader-elected (ARGOCD_APPLICATIONSET_CONTROLLER_ENABLE_LEADER_ELECTION)"},
		{File: "argo-cd/manifests/install.yaml", Kind: "Deployment", Name: "argocd-redis", Rule: "replicas-too-few", Fire: true, NoFix: true,
			Why: "a single-instance redis (the HA install uses redis-ha): it is down on every restart, but three replicas would be three caches, not HA"},
		{File: "kubernetes-examples/web/guestbook/redis-master-deployment.yaml", Kind: "Deployment", Name: "redis-master", Rule: "replicas-too-few", Fire: true, NoFix: true,
			Why: "a single-instance datastore: down on every restart, but more replicas would be more masters"},
		{File: "gke-samples/quickstarts/wordpress-persistent-disks/mysql.yaml", Kind: "Deployment", Name: "mysql", Rule: "replicas-too-few", Fire: true, NoFix: true,
			Why: "a single-instance MySQL on a ReadWriteOnce disk: down on every restart, and not scaled by adding replicas"},
		{File: "gke-samples/ai-ml/llm-serving-gemma/vllm/vllm-2b.yaml", Kind: "Deployment", Name: "vllm-gemma-deployment", Rule: "replicas-with-hpa",
			Why: "the HPAs naming vllm-gemma-deployment live in kubernetes-examples/AI/vllm-deployment/hpa/, another repository's example"},
		{File: "gke-samples/quickstarts/guestbook/frontend-deployment.yaml", Kind: "Deployment", Name: "frontend", Rule: "replicas-with-hpa",
			Why: "the HPAs naming frontend belong to other examples in other folders, no namespace"},
		{File: "metrics-server/master-kustomize-parts/manifests/components/high-availability/pdb.yaml", Kind: "PodDisruptionBudget", Name: "metrics-server", Rule: "pdb-blocks-eviction",
			Why: "the same component's patch.yaml raises replicas to 2, so minAvailable 1 leaves one pod evictable"},
		{File: "kubernetes-examples/_archived/sysdig-cloud/sysdig-rc.yaml", Kind: "ReplicationController", Name: "sysdig-agent", Rule: "spread-missing",
			Why: "hostNetwork with a hostPort: two pods can never share a node"},
		{File: "kubernetes-examples/_archived/storm/storm-worker-controller.yaml", Kind: "Deployment", Name: "storm-worker-controller", Rule: "spread-missing",
			Why: "host ports keep its pods on different nodes"},
		{File: "microservices-demo/release/kubernetes-manifests.yaml", Kind: "Deployment", Name: "currencyservice", Rule: "spread-missing",
			Why: "one replica; the HPAs naming it are another example's"},
		{File: "gke-samples/workloads/migrate-x86-app-to-multi-arch/k8s/overlays/multiarch/increase_replicas.yaml", Kind: "Deployment", Name: "hello-deployment", Rule: "spread-missing",
			Why: "a kustomize patch (no containers): the base it patches is judged, not the fragment"},
	})
}
